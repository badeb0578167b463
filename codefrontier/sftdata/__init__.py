"""SFT data: conversations built from the bundled suite's programs, played through
each setting's own environment (the judge's sandbox, a real terminal), so that SFT
shows the model the observations it will see. Above `settings` and `evaluate`
(whose repair format it writes); the suite below it is data only."""
