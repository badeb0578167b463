"""Problems: the schema every stage shares and summary statistics of a problems file."""
