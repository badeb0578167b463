"""The bundled problem suite: problems written for this project, with efficient,
slow and buggy references and generators for stratified stress tests."""
