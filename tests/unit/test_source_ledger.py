"""Sources and files in a response: each shown once, in first-seen order, with ids that depend only on the source."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from toolwire._source_events import derived_source_id
from toolwire._source_ledger import SourceLedger
from toolwire.deltas import FileFound, SourceFound
from toolwire.events import File, SourceDocument, SourceUrl

URLS = st.sampled_from(["https://a.example", "https://b.example/x?y=1", "https://c.example/é"])
SOURCES = st.one_of(
    st.builds(SourceFound, st.just("url"), url=URLS, title=st.sampled_from([None, "", "Title"])),
    st.builds(
        SourceFound,
        st.just("document"),
        title=st.sampled_from(["Notes", "Report"]),
        media_type=st.sampled_from(["text/plain", "application/pdf"]),
        source_id=st.sampled_from([None, "file-1"]),
    ),
)


def _shown(deltas: list[SourceFound]) -> list[SourceUrl | SourceDocument | File]:
    ledger = SourceLedger()
    return [event for delta in deltas if (event := ledger.source(delta)) is not None]


@given(st.lists(SOURCES, max_size=12))
def test_each_source_is_shown_once_in_first_seen_order_with_the_id_it_has_alone(deltas: list[SourceFound]) -> None:
    """The id of a source never depends on what came before it; repeats are dropped."""
    alone = [event.source_id for delta in deltas for event in _shown([delta])]
    assert [event.source_id for event in _shown(deltas)] == list(dict.fromkeys(alone))


def test_a_url_source_id_is_derived_from_the_url_only() -> None:
    (first,) = _shown([SourceFound("url", url="https://a.example", title="A")])
    (second,) = _shown([SourceFound("url", url="https://a.example", title="Another title")])
    assert (
        first.source_id == second.source_id == derived_source_id("url", "https://a.example") == "src_b423dca12540a7aa"
    )


def test_the_providers_id_wins_and_names_the_document() -> None:
    assert _shown([SourceFound("document", title="Notes", media_type="text/plain", source_id="file-1")]) == [
        SourceDocument(source_id="file-1", media_type="text/plain", title="Notes")
    ]


def test_a_document_without_title_is_named_after_its_file_else_document() -> None:
    named = SourceFound("document", filename="q3.pdf", media_type="application/pdf")
    bare = SourceFound("document")
    assert [(e.title, e.media_type) for e in _shown([named, bare]) if isinstance(e, SourceDocument)] == [
        ("q3.pdf", "application/pdf"),
        ("Document", "application/octet-stream"),
    ]


def test_the_same_file_twice_is_shown_once() -> None:
    ledger = SourceLedger()
    image = FileFound("data:image/png;base64,AAAA", "image/png")
    assert [ledger.file(image), ledger.file(image)] == [
        File(url="data:image/png;base64,AAAA", media_type="image/png"),
        None,
    ]


def test_a_page_without_an_address_is_not_shown() -> None:
    assert _shown([SourceFound("url", url=None, title="A"), SourceFound("url", url="", title="B")]) == []
