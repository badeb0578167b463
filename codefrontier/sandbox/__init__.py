"""Running untrusted programs: Linux namespaces and mounts, the procfs helpers, the
agentic terminal's bubblewrap workspace, and cutting program output to size."""
