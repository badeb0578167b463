"""The workflow's plumbing: the config slices and command lines the rules run, the
resources they ask for, the checks and costs of a plan, audit."""
