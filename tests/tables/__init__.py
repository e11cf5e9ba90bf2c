"""Cell tables: the checks that run inside the plan, whatever collects it."""
