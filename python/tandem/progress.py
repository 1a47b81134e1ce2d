"""The progress bar of ``fit`` on a terminal: one line per epoch, redrawn each step."""
import sys
import time
from typing import Dict


class ProgressBar:
    """Called after every step with (step, steps, mean loss so far)."""

    WIDTH = 30

    def __init__(self, epoch: int, epochs: int, steps: int) -> None:
        self.prefix = f"epoch {epoch + 1}/{epochs}"
        self.steps = steps
        self.start = time.monotonic()
        sys.stdout.write(self.prefix + "\n")

    def __call__(self, step: int, steps: int, loss: float) -> None:
        done = self.WIDTH * step // max(steps, 1)
        bar = "=" * done + (">" if done < self.WIDTH else "") + "." * (self.WIDTH - done - 1)
        sys.stdout.write(f"\r{step}/{steps} [{bar}] loss {loss:.4f}")
        sys.stdout.flush()

    def finish(self, logs: Dict[str, float]) -> None:
        seconds = time.monotonic() - self.start
        values = " - ".join(f"{k} {v:.4f}" for k, v in logs.items())
        sys.stdout.write(f"\r{self.steps}/{self.steps} [{'=' * self.WIDTH}] {seconds:.1f}s - "
                         f"{values}\n")
        sys.stdout.flush()
