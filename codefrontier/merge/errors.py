"""The one error a merge raises for inputs it cannot merge as asked."""


class MergeError(ValueError):
    """Parents that do not fit together, weights that are not an affine combination, an
    output that exists, a result that is not finite: the message says which."""
