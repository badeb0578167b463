"""How many sandbox workers a judge pool starts: the node's cores, shared by its
training processes."""

import os

from codefrontier.judge.pool import workers_per_process


def test_a_lone_process_gets_one_worker_per_core_it_may_use(monkeypatch):
    monkeypatch.delenv("LOCAL_WORLD_SIZE", raising=False)
    assert workers_per_process() == len(os.sched_getaffinity(0))


def test_training_processes_of_a_node_share_its_workers(monkeypatch):
    monkeypatch.setenv("LOCAL_WORLD_SIZE", "8")
    assert workers_per_process(32) == 4
    assert workers_per_process(4) == 1  # never none


def test_an_explicit_count_is_per_node(monkeypatch):
    monkeypatch.setenv("LOCAL_WORLD_SIZE", "2")
    assert workers_per_process(6) == 3
    monkeypatch.delenv("LOCAL_WORLD_SIZE")
    assert workers_per_process(6) == 6
