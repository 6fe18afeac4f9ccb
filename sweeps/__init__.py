"""Optuna sweeps over the losses' hyper-parameters, above all CE-GPPO's beta1 / beta2, tracked in MLflow.

    harness sweep --config sweeps/configs/beta_grid.yaml      # `make sweep`

- `spaces`: what may vary per loss (named, documented search spaces) and the paper's beta grid;
- `config`: the sweep file, validated like the training configs;
- `objective`: one trial = training runs on paired seeds, with stability figures and pruning;
- `study`: storage, sampler, pruner, heartbeat, the MLflow parent run, a worker's loop;
- `recovery`: trials failed by their environment (killed or interrupted workers, a full disk) retried;
- `worker`, `cli`: the worker processes and the `harness sweep` command;
- `report`, `figures`, `finish`: the trial table, the figures and the parent run's end of a sweep.

Imports point sweeps -> harness only; `harness sweep` reaches this package through an entry point.
"""
