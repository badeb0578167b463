"""Problems: the schema every stage shares, the registry of problem sources, and summary
statistics of a problems file."""
