"""pytester runs pytest itself in a subprocess: the plugin is tested as students run it."""

pytest_plugins = ["pytester"]
