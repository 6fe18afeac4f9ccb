"""Optuna studies over the losses' hyper-parameters (search spaces, objective, pruning, MLflow
nesting). Empty until the sweeps issue lands; see DESIGN.md section 5 for the plan.
"""
