"""Hidden inputs, never hidden rules: what a spec hides from students must not hide a requirement.

Grading redraws every case's inputs from a secret seed, so a hidden case only hides its recipe: its
shapes and the kinds of input it uses. A student at 100 % on the visible checks may lose points only for
mistakes that show on unseen inputs, never for a rule they could not see. So every law a hidden property
uses has a visible property using it too (on a visible base case, so a handout can run it), and every
kind of input a hidden case uses (an argument's dtype, memory layout, mask pattern, position order, or
being None) appears in some visible case.
"""

from attnlab.core.spec import CaseSpec, ExerciseSpec

DATA_KINDS = ("tensor", "literal", "mask", "positions", "derived")


def input_kinds(case: CaseSpec) -> set[tuple[str, str, str]]:
    """(argument, aspect, value) for every kind of input the case uses."""
    kinds = set()
    for name, recipe in case.args.items():
        if recipe.kind in DATA_KINDS:
            kinds |= {(name, "dtype", recipe.dtype), (name, "layout", recipe.layout)}
            if recipe.kind == "mask":
                kinds.add((name, "pattern", recipe.pattern))
            if recipe.kind == "positions":
                kinds.add((name, "order", recipe.order))
        elif recipe.kind == "value" and recipe.value is None:
            kinds.add((name, "value", "None"))
    return kinds


def hidden_rules(exercise: ExerciseSpec) -> list[str]:
    """What the exercise hides that a student would need to see; [] when nothing."""
    problems = []
    visible_laws = {p.check for p in exercise.properties if p.visible}
    for prop in exercise.properties:
        if not prop.visible and prop.check not in visible_laws:
            problems.append(f"law {prop.check!r} (property {prop.name!r}) has no visible instance")
    visible_cases = {c.name for c in exercise.cases if c.visible}
    for prop in exercise.properties:
        base = prop.params.get("base_case")
        if prop.visible and base is not None and base not in visible_cases:
            problems.append(f"visible property {prop.name!r} uses hidden case {base!r}: a handout cannot run it")
    shown = set().union(*(input_kinds(c) for c in exercise.cases if c.visible))
    for case in exercise.cases:
        if not case.visible:
            for name, aspect, value in sorted(input_kinds(case) - shown):
                problems.append(f"hidden case {case.name!r} uses {name} with {aspect} {value}, which no visible "
                                "case uses")
    return problems
