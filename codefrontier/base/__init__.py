"""What every layer reads: the results layout, typed options, record tables,
provenance and publishing by rename. It imports nothing of the package but
`rewards` (the reward names the layout's paths carry)."""
