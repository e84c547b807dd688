"""The GPU kernel's launch swept on a real GPU: playout rates (kernel time) of each game for
several block sizes and thread counts, medians of runs, with the kernel's static resources.

    python scripts/gpu_tune.py games/tictactoe.kif ... [--runs 3] [--json OUT]

Needs CuPy and an NVIDIA GPU (see docs on the GPU build); prints one line per setting.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from reasoner.engine.game import Game
from reasoner.propnet.gpu import GpuKernel
from reasoner.propnet.native import NativeMachine

# Playouts per measured run, by how long a game's playouts are (a run of about 0.1-0.5 s).
_PLAYOUTS = {"tictactoe": 1 << 24, "connectfour": 1 << 22, "reversi": 1 << 19,
             "breakthrough": 1 << 19}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("games", nargs="+")
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--blocks", default="64,128,256")
    parser.add_argument("--factors", default="0.5,1,2")
    parser.add_argument("--per-thread", type=int, default=0,
                        help="playouts per thread (every lane busy) instead of a fixed count")
    parser.add_argument("--json")
    args = parser.parse_args()
    import cupy  # type: ignore[import-not-found, unused-ignore]

    rows_out = []
    for path in args.games:
        stem = Path(path).stem
        began = time.perf_counter()
        game = Game.from_gdl(Path(path).read_text(), backend="native")
        machine = game.machine
        assert isinstance(machine, NativeMachine)
        image = machine.image
        start = machine.start_bytes(game.initial_state.bits)
        print(f"{stem}: rows {image.rows}, image {len(image.data)} ints, park {image.park(64)}, "
              f"loaded in {time.perf_counter() - began:.1f} s", flush=True)
        playouts = _PLAYOUTS.get(stem, 1 << 20)
        for block in [int(b) for b in args.blocks.split(",")]:
            kernel = GpuKernel(image, machine.roles, cupy, block=block)
            f = kernel.function
            resident = kernel.resident or 0
            if not resident:  # estimated from the registers where CUDA did not say
                sms = cupy.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"]
                regs = max(1, int(getattr(f, "num_regs", 64)))
                per_sm = min(2048, 65536 // (-(-regs // 8) * 8)) // block * block
                resident = sms * per_sm
                print(f"  (occupancy unknown: {resident} threads from {regs} registers)")
            print(f"  block {block}: regs {getattr(f, 'num_regs', '?')}, local "
                  f"{getattr(f, 'local_size_bytes', '?')} B, resident {resident}", flush=True)
            kernel.run(start, 1 << 16, 0, 1000)  # warm
            for factor in [float(x) for x in args.factors.split(",")]:
                threads = max(block, int(resident * factor) // block * block)
                if args.per_thread:
                    playouts = threads * args.per_thread
                rates = []
                for run in range(args.runs):
                    measured = kernel.run(start, playouts, run, 1000, threads=threads)
                    rates.append(measured.updates / measured.kernel_seconds)
                rate = statistics.median(rates)
                print(f"    threads {threads:>7} ({factor:g}x): {rate / 1e6:10.1f} M/s "
                      f"(runs {', '.join(f'{r / 1e6:.0f}' for r in rates)}), "
                      f"{measured.kernel_seconds * 1e3:.1f} ms", flush=True)
                rows_out.append({"game": stem, "block": block, "threads": threads,
                                 "factor": factor, "rate": rate, "rates": rates,
                                 "playouts": playouts})
    if args.json:
        Path(args.json).write_text(json.dumps(rows_out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
