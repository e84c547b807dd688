"""The generated gRPC code in reasoner/v1 is checked in; it must match proto/."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

PROTO = ROOT / "proto" / "reasoner" / "v1" / "reasoner.proto"
GENERATED = ROOT / "reasoner" / "v1"
FILES = ("reasoner_pb2.py", "reasoner_pb2.pyi", "reasoner_pb2_grpc.py")


def test_generated_code_is_current(tmp_path: Path) -> None:
    """Regenerating from the .proto gives exactly the checked-in files (else run `make proto`)."""
    subprocess.run(
        [sys.executable, "-m", "grpc_tools.protoc", f"-I{ROOT / 'proto'}",
         f"--python_out={tmp_path}", f"--pyi_out={tmp_path}", f"--grpc_python_out={tmp_path}",
         str(PROTO)],
        check=True, capture_output=True,
    )
    for name in FILES:
        fresh = (tmp_path / "reasoner" / "v1" / name).read_text(encoding="utf-8")
        checked_in = (GENERATED / name).read_text(encoding="utf-8")
        assert fresh == checked_in, f"reasoner/v1/{name} is stale: run `make proto`"


def test_every_rpc_is_commented() -> None:
    """The contract documents itself: every rpc has a comment right above it."""
    lines = PROTO.read_text(encoding="utf-8").splitlines()
    undocumented = []
    for number, line in enumerate(lines):
        text = line.strip()
        if text.startswith("rpc ") and not lines[number - 1].strip().startswith("//"):
            undocumented.append(text)
    assert undocumented == []
