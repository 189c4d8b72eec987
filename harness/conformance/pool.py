"""Crash-proof parallel map: worker subprocesses that take one JSON job per line.

A worker that dies (onnxruntime can abort or segfault on odd models) costs only
the job it was running, which is reported as crashed; a fresh worker goes on.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _spawn(task):
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONWARNINGS="ignore")
    return subprocess.Popen([sys.executable, "-m", "conformance.pool", task], cwd=HERE, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True, bufsize=1)


def run_jobs(task, jobs, workers=2, on_result=None, timeout=None):
    """Run `task` (a name in TASKS) on each job (JSON-able, with an 'id'); returns id -> result."""
    results, lock = {}, threading.Lock()
    queue = list(jobs)

    def loop():
        proc = None
        while True:
            with lock:
                if not queue:
                    break
                job = queue.pop(0)
            if proc is None or proc.poll() is not None:
                proc = _spawn(task)
            line = None
            try:
                proc.stdin.write(json.dumps(job) + "\n")
                proc.stdin.flush()
                line = proc.stdout.readline()
            except (BrokenPipeError, OSError):
                line = None
            if not line:
                rc = proc.wait()
                res = {"id": job["id"], "crashed": f"worker died (exit {rc})"}
                proc = None
            else:
                res = json.loads(line)
            with lock:
                results[job["id"]] = res
            if on_result:
                on_result(res)
        if proc is not None and proc.poll() is None:
            proc.stdin.close()
            proc.wait()

    threads = [threading.Thread(target=loop) for _ in range(max(1, workers))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def _worker(task):
    from . import tasks

    fn = getattr(tasks, task)
    for line in sys.stdin:
        job = json.loads(line)
        try:
            res = fn(job)
        except Exception as e:  # the task decides what it records; this is a last resort
            res = {"id": job["id"], "crashed": f"{type(e).__name__}: {e}"}
        sys.stdout.write(json.dumps(res) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    _worker(sys.argv[1])
