"""The reader's junction flag is no witness between a junction and its plain twin (issue 19, branch
tokyojx2). The twins differ only in their top unit's pixels, which the build scores already weigh; the
reader's flag is its own threshold on the yellow of those same pixels, and its witness multiplied the
matched twin's odds by the whole reading's confidence (up to 49 to 1), enough to turn a junction the
pixels led at 0.6 into a plain column at 0.9 and more."""

from __future__ import annotations

from test_tokyo_referee import play


def _twins(junction_share: float):
    from engine.tokyo import Build, NewSupport
    from referee_app.games.tokyo_builds import BuildBelief
    from vision.beliefs import EMPTY, REST

    state = play("purple start (-150,-60) table (-150,-170)", "green start (150,-60) table (150,-170)")
    junction = Build(1, NewSupport(-150.0, 40.0, 3, True), player="purple")
    plain = Build(1, NewSupport(-150.0, 40.0, 3), player="purple")
    lower = Build(1, NewSupport(-150.0, 40.0, 2), player="purple")
    kj, kp, kl = ("(-150,40) h3 junction from (-150,-60)", "(-150,40) h3 from (-150,-60)",
                  "(-150,40) h2 from (-150,-60)")
    rest = 1.0 - junction_share - 0.2
    belief = {kj: junction_share, kp: rest, kl: 0.15, EMPTY: 0.05, REST: 1e-4}
    builds = BuildBelief(belief, {kj: junction, kp: plain, kl: lower}, state, views=2,
                         pixels={kj: 300.0, kp: 260.0, kl: 200.0})
    return builds, (kj, kp, kl), (junction, plain, lower)


def test_a_plain_reading_does_not_turn_a_junction_the_pixels_lead() -> None:
    """Main: the plain twin 0.2 x 0.95 / 0.05 against the junction's 0.6, read plain at 0.95."""
    from referee_app.games.tokyo_builds import fuse_reading

    builds, (kj, kp, kl), (_, plain, _) = _twins(0.6)
    fuse_reading(builds, plain, 0.95)
    b = builds.belief
    assert b[kj] > b[kp]
    assert abs(b[kj] / b[kp] - 3.0) < 1e-9  # the twins' odds are the pixels' own
    assert b[kp] > b[kl]  # the place and height are still witnessed: the other height loses


def test_a_junction_reading_witnesses_its_plain_twin_alike() -> None:
    from referee_app.games.tokyo_builds import fuse_reading

    builds, (kj, kp, kl), (junction, _, _) = _twins(0.3)
    before = builds.belief[kp] / builds.belief[kj]
    fuse_reading(builds, junction, 0.95)
    assert abs(builds.belief[kp] / builds.belief[kj] - before) < 1e-9
    assert builds.belief[kj] / builds.belief[kl] > 0.3 / 0.15  # h3 over h2 still witnessed


def test_another_height_or_base_is_no_twin() -> None:
    from engine.tokyo import Build, NewSupport
    from referee_app.games.tokyo_builds import _same_build

    a = Build(1, NewSupport(-150.0, 40.0, 3, True), player="purple")
    assert _same_build(a, Build(1, NewSupport(-150.0, 40.0, 3), player="green"), colour=False)
    assert not _same_build(a, Build(1, NewSupport(-150.0, 40.0, 3), player="green"))
    assert not _same_build(a, Build(1, NewSupport(-150.0, 40.0, 2, True)), colour=False)
    assert not _same_build(a, Build(2, NewSupport(-150.0, 40.0, 3)), colour=False)
    assert not _same_build(a, Build(1, NewSupport(-140.0, 40.0, 3)), colour=False)
