"""The workflow's plumbing: the results layout, the config slices and command lines the
rules run, provenance and audit, publishing by rename, record tables, typed options."""
