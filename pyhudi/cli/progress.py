"""Progress of the CLI's long work: the Spark tasks a service runs, as one rich bar (Spark's own console bars
are off in the CLI's session), the service's messages printed above it, and a closing line of what ran."""
from __future__ import annotations

import contextlib
import itertools
import threading
import time
from typing import Callable, Iterator

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

_groups = itertools.count()


def _tasks(spark, group: str) -> tuple[int, int, int]:
    """(completed tasks, tasks, stages that ran tasks) of the jobs of Spark job group `group` so far; a stage a
    job skipped (its shuffle output reused) counts its tasks but never completes them."""
    tracker = spark.sparkContext.statusTracker()
    done = total = stages = 0
    for job in tracker.getJobIdsForGroup(group):
        info = tracker.getJobInfo(job)
        for stage in (info.stageIds if info else ()):
            s = tracker.getStageInfo(stage)
            if s is not None:
                done, total, stages = done + s.numCompletedTasks, total + s.numTasks, stages + (s.numCompletedTasks > 0)
    return done, total, stages


@contextlib.contextmanager
def spark_tasks(spark, console: Console, label: str) -> Iterator[Callable[[str], None]]:
    """Runs the body's Spark jobs under a job group of their own and draws their tasks as a bar; yields the
    callback a service reports its steps to."""
    group = f"pyhudi-cli-{next(_groups)}"
    spark.sparkContext.setJobGroup(group, label)
    started, stop = time.monotonic(), threading.Event()
    columns = (SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task(label, total=None)

        def poll() -> None:
            while not stop.wait(0.2):
                done, total, _ = _tasks(spark, group)
                bar.update(task, completed=done, total=total or None)

        watcher = threading.Thread(target=poll, name="pyhudi-cli-progress", daemon=True)
        watcher.start()
        try:
            yield bar.console.print
        finally:
            stop.set()
            watcher.join()
            spark.sparkContext.setLocalProperty("spark.jobGroup.id", None)
    done, _, stages = _tasks(spark, group)
    console.print(f"{label}: {done:,} Spark tasks in {stages} stages, {time.monotonic() - started:.1f} s")
