"""View patches from scene packs: a pack whose scene type has reduce_patch
(yaia_scene.h) writes the operations itself, and the runtime passes them on,
checked; a pack built before the field still gets patches, diffed by the
runtime. Either way a host sees the same updates."""

import os
from pathlib import Path
from typing import Any, Dict, List

import pytest

import yaia
from yaia.patch import apply_patch

REPO = Path(__file__).resolve().parents[2]
PACKS = Path(os.environ.get("YAIA_TEST_PACK_DIR") or REPO / ".build" / "yaia" / "test-packs")


def pack(name: str) -> str:
    path = PACKS / name
    if not path.exists():
        pytest.skip(f"{path} is not built (make test-packs)")
    return str(path)


def sends(runtime: yaia.Runtime, actions: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    scene = runtime.execute({"op": "open", "scene": "test/counter", "args": {}})["scene"]
    answers = []
    for action in actions:
        answer = runtime.execute({"op": "send", "scene": scene, "action": action})
        answers.append({k: answer.get(k) for k in ("viewPatch", "viewBase", "viewModel", "seq")})
    answers.append(runtime.execute({"op": "view", "scene": scene})["viewModel"])
    return answers


ACTIONS = [{"type": "add", "payload": 3}, {"type": "add", "payload": 0}, {"type": "increment"}, {"type": "add", "payload": 5}]


def test_a_pack_with_reduce_patch_gives_the_updates_a_pack_without_it_gets() -> None:
    with yaia.Runtime(scenes=[pack("counter.so")], view="patch") as old, \
            yaia.Runtime(scenes=[pack("patches.so")], view="patch") as new:
        before = sends(old, ACTIONS)
        after = sends(new, ACTIONS)
    assert after == before
    assert before[0]["viewPatch"] == [{"op": "replace", "path": "/count", "value": 3}, {"op": "replace", "path": "/even", "value": False}]
    assert before[1]["viewPatch"] == [] and before[1]["viewBase"] == before[0]["seq"]
    assert before[-1] == {"count": 9, "even": False}


def test_whole_mode_never_asks_for_patches() -> None:
    with yaia.Runtime(scenes=[pack("patch_garbage.so")]) as rt:
        answers = sends(rt, ACTIONS)
    assert answers[0]["viewModel"] == {"count": 3, "even": False} and answers[0]["viewPatch"] is None


def test_operations_a_pack_writes_are_checked_and_a_refusal_is_caught_up() -> None:
    with yaia.Runtime(scenes=[pack("patch_garbage.so")], view="patch") as rt:
        scene = rt.execute({"op": "open", "scene": "test/counter", "args": {}})
        held = scene["viewModel"]
        with pytest.raises(yaia.YaiaError) as refused:
            rt.execute({"op": "send", "scene": scene["scene"], "action": {"type": "add", "payload": 2}})
        assert refused.value.code == "scene_pack_error" and "view patch" in str(refused.value)
        # The pack reduced all the same: the next update brings the host up
        # to date from the view model it holds (the pack's own patch no longer fits it).
        answer = rt.execute({"op": "send", "scene": scene["scene"], "action": {"type": "add", "payload": 1}})
        assert answer["ok"] is True
        assert apply_patch(held, answer["viewPatch"]) == {"count": 3, "even": False}
