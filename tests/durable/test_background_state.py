"""What a durable agent's background runner exports when its run is over: its queued tasks live on."""

from __future__ import annotations

from toolwire.durable._agent import DurableBackground
from toolwire.results import ToolCall
from toolwire.runtime import BackgroundTask
from toolwire.tools import create_tool

RESEARCH = create_tool(id="research", description="Research.", execute=lambda args: "done", background=True)


def test_abandoning_a_durable_run_keeps_its_queued_tasks_running() -> None:
    task = BackgroundTask(task_id="run-1-task-1", call=ToolCall(tool_call_id="c1", tool_name="research", input={}))
    background = DurableBackground()
    background.import_state({"running": [task.to_dict()]}, {"research": RESEARCH})
    assert background.abandon("the run that started it ended") == {"running": [task.to_dict()], "ended": []}
    assert [t.task_id for t in background.running] == ["run-1-task-1"]
