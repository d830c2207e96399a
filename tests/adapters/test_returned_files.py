"""A file the model returned goes back in the history where the API takes one, and is reported where it does not."""

from __future__ import annotations

from typing import Any

import pytest

from toolwire import get_adapter
from toolwire.events import File, SourceUrl, TextDelta, TextEnd, TextStart
from toolwire.messages import (
    AssistantMessage,
    MediaPart,
    TextPart,
    assistant_message,
    message_to_dict,
    to_message,
    user,
)

PNG = "iVBORw0KGgo="
SIGNATURE = "c2lnbmF0dXJl"
SIGNED = {"google": {"thoughtSignature": SIGNATURE}}
EVENTS = [
    TextStart(id="0"),
    TextDelta(id="0", delta="Here it is."),
    TextEnd(id="0"),
    File(url=f"data:image/png;base64,{PNG}", media_type="image/png", provider_metadata=SIGNED),
    SourceUrl(source_id="src_1", url="https://a.example", title="A"),
]


def _turn() -> AssistantMessage:
    return assistant_message(EVENTS)


def test_an_assistant_message_keeps_files_and_leaves_sources_out() -> None:
    assert _turn().content == (
        TextPart(text="Here it is."),
        MediaPart(part={"type": "image-data", "data": PNG, "mediaType": "image/png"}, provider_metadata=SIGNED),
    )


def test_a_linked_file_is_kept_as_a_link() -> None:
    linked = assistant_message([File(url="https://cdn.example/report.pdf", media_type="application/pdf")])
    assert linked.content == (
        MediaPart(part={"type": "file-url", "url": "https://cdn.example/report.pdf", "mediaType": "application/pdf"}),
    )


def test_gemini_gets_the_image_back_as_inline_data_with_its_thought_signature() -> None:
    encoded = get_adapter("gemini").encode_messages([user("Draw a cat"), _turn()])
    assert encoded["contents"][1] == {
        "role": "model",
        "parts": [
            {"text": "Here it is."},
            {"inlineData": {"mime_type": "image/png", "data": PNG}, "thoughtSignature": SIGNATURE},
        ],
    }
    assert encoded.warnings == []


@pytest.mark.parametrize(
    ("api", "action"),
    [
        (
            "anthropic",
            "dropped a file the model returned (image-data): Anthropic takes no files in assistant turns",
        ),
        ("openai-chat", "dropped 1 file(s) the model returned: Chat takes no files in assistant messages"),
        (
            "openai-responses",
            "dropped 1 file(s) the model returned: Responses takes no files in assistant messages (only a generated "
            "image stored by OpenAI is sent back, as its image_generation_call item)",
        ),
    ],
)
def test_apis_without_assistant_files_report_the_dropped_file(api: str, action: str) -> None:
    encoded = get_adapter(api).encode_messages([user("Draw a cat"), _turn()])
    files = [(w.feature, w.action) for w in encoded.warnings if w.feature == "history.file"]
    assert files == [("history.file", action)]
    assert "iVBORw0KGgo" not in repr(dict(encoded))


def test_a_responses_image_sent_back_by_its_item_is_not_reported() -> None:
    """The image of a stored image_generation_call goes back as that item's reference, with its call."""
    response: dict[str, Any] = {
        "id": "resp_1",
        "object": "response",
        "status": "completed",
        "output": [{"id": "ig_1", "type": "image_generation_call", "status": "completed", "result": PNG}],
    }
    adapter = get_adapter("openai-responses")
    turn = assistant_message(adapter.normalize(response))
    assert any(isinstance(part, MediaPart) for part in turn.content)
    encoded = adapter.encode_messages([user("Draw a cat"), turn])
    assert encoded["input"][1:] == [{"type": "item_reference", "id": "ig_1"}]
    assert encoded.warnings == []


def test_the_dict_form_of_a_returned_file_reads_back_the_same() -> None:
    data = message_to_dict(_turn())
    assert data["content"][1] == {
        "type": "image-data",
        "data": PNG,
        "mediaType": "image/png",
        "providerMetadata": SIGNED,
    }
    assert to_message(data) == _turn()
