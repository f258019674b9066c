"""Everything that knows pytest's nodes and hooks: the process's role and its hooks (roles.py), the collection
tree (collect.py), what the user selected (selection.py), which samples start ahead (lookahead.py), the run's
tasks with those of conftest.py files (registry.py), --codeeval-list-tasks (listing.py), bad input turned into
pytest's usage error (usage.py), and every private pytest API in one place (compat.py). The pipeline below
(tasks, solutions, generation, execution, evaluation, reporting) never imports this package, nor pytest."""
