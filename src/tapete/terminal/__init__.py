"""Terminal front-ends, one module per game (``tapete play GAME``).

Each module (named by its game's ``GameKind.terminal``) provides ``play_terminal(profile,
level, seed, *, name, show_points, input_fn, output_fn) -> int``: one person at seat 0
against computer players, every action through the engine, everything shown taken from the
person's view. ``OPTIONS`` names the optional arguments the module honours (the CLI refuses
the others for that game).
"""
