"""The Python binding takes nothing silently (issue 64, part 3): every index and count
is range-checked before ctypes would wrap it, every array's shape is checked against
what C will read, an observer must be callable and its exception reaches the caller,
and a closed handle says so instead of failing with another call's message."""
import numpy as np
import pytest

import fcd


def small():
    s = fcd.System(4)
    s.set_matrix("mass", np.eye(4))
    s.set_matrix("stiffness", np.eye(4))
    s.set_load([0, -1.0, 0, -1.0])
    cs = fcd.ContactSet(s, 2)
    cs.add_rigid([0, 1], [0, -1], [1, 0], mu=0.3)
    cs.add_rigid([2, 3], [0, -1], [1, 0], mu=0.3)
    return s, cs


@pytest.mark.parametrize("big", [2 ** 64 + 3, 2 ** 63, -(2 ** 63) - 1, 10 ** 30])
def test_integers_past_64_bits_are_refused(big):
    # ctypes took 2**64 + 3 for 3: a system of 3 dofs, contact 1 changed, 3 sweep steps
    with pytest.raises(OverflowError, match="ndofs"):
        fcd.System(big)
    s, cs = small()
    with pytest.raises(OverflowError, match="contact"):
        cs.set_friction(big, 0.5)
    st = fcd.Stability(s, cs)
    st.set_contact_state(["slip", "slip"], [[1.0], [1.0]])
    with pytest.raises(OverflowError, match="steps"):
        st.sweep(0, 1, big)
    with pytest.raises(OverflowError, match="dofs"):
        cs.add_rigid([0, big], [0, -1], [1, 0])
    with pytest.raises(OverflowError, match="dofs"):
        s.fix_dofs([big])
    with pytest.raises(OverflowError, match="dofs"):
        cs.add_rigid_many([[0, big]], [[0, -1]], [[1, 0]], mu=0.1)
    assert len(cs) == 2 and fcd.System(3).ndofs == 3


def test_negative_and_non_integer_counts():
    with pytest.raises(OverflowError):
        fcd.System(-1)
    for bad in (4.0, 2.5, True, "4", None):
        with pytest.raises(TypeError):
            fcd.System(bad)
    s, cs = small()
    with pytest.raises(TypeError):
        cs.set_friction(1.0, 0.5)
    with pytest.raises(TypeError):
        fcd.Stability(s, cs).sweep(0, 1, 3.0)


def test_float_dofs_are_refused_alike():
    s, cs = small()
    # add_rigid refused 1.5 while add_rigid_many took 2.7 for 2
    with pytest.raises(TypeError, match="2.7"):
        cs.add_rigid_many([[0, 2.7]], [[0, -1]], [[1, 0]], mu=0.1)
    with pytest.raises(TypeError, match="1.5"):
        cs.add_rigid([0, 1.5], [0, -1], [1, 0])
    assert len(cs) == 2
    # integral floats are indices all the same, in both (a ceiling over node 0: the floor
    # again would repeat contact 0, refused by name)
    cs.add_rigid_many([[0.0, 1.0]], [[0, 1]], [[1, 0]], mu=0.1)
    assert len(cs) == 3


def test_cells_shorter_than_their_type_are_refused():
    s = fcd.System(16)
    xy = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0],
                   [0, 0, 1], [1, 0, 1], [1, 1, 1], [0, 1, 1]], dtype=float)
    m = fcd.Mesh(s, xy, node_dofs=-np.ones((8, 3), dtype=int))
    # a hexahedron given one node: C would have read seven more past the array
    with pytest.raises(ValueError, match="hexahedron has 8 nodes"):
        m.add_cells("hexahedron", [[0]])
    with pytest.raises(ValueError, match="tetra has 4 nodes"):
        m.add_cells("tetra", [[0, 1, 2]])
    with pytest.raises(ValueError, match="has 3 nodes"):
        m.add_cells("triangle", [[0, 1, 2, 3]])
    m.add_cells("hexahedron", [list(range(8))])


def test_observer_must_be_callable_and_its_exception_reaches_the_caller():
    s, cs = small()
    it = fcd.Integrator(s, cs, "moreau-jean", step=0.01)
    it.set_state(0.0, np.zeros(4), np.zeros(4))
    for bad in (3, "print", [1]):
        with pytest.raises(TypeError, match="callable"):
            it.set_observer(bad)

    class Boom(RuntimeError):
        pass

    def obs(t, u, v, r, counts):
        if t > 0.025:
            raise Boom("raised in the observer at t = %g" % t)
        return False

    it.set_observer(obs)
    with pytest.raises(Boom, match="raised in the observer") as e:
        it.advance(0.1)
    # the step's own failure is kept as the cause
    assert isinstance(e.value.__cause__, fcd.FcdError)
    t, _, _ = it.state
    assert t == pytest.approx(0.03)  # the state up to the failing step is kept
    it.set_observer(None)
    it.advance(0.1)
    # a sweep's callback is the binding's own; an error in it is not lost either
    st = fcd.Stability(s, cs)
    st.set_contact_state(["slip", "slip"], [[1.0], [1.0]])
    assert len(st.sweep(0.0, 1.0, 3)) == 3


def test_closed_handles_say_so():
    s, cs = small()
    eq = fcd.Equilibrium(s, cs)
    eq.solve()
    cs.close()
    assert cs.closed
    with pytest.raises(ValueError, match="ContactSet is closed"):
        len(cs)
    with pytest.raises(ValueError, match="ContactSet is closed"):
        cs.add_rigid([0, 1], [0, -1], [1, 0])
    # the equilibrium holds the C contact set: it still solves
    eq.solve()
    cs.close()  # idempotent
    with fcd.System(2) as t:
        assert t.ndofs == 2
    with pytest.raises(ValueError, match="System is closed"):
        t.set_load([1.0, 2.0])
    with pytest.raises(ValueError, match="System is closed"):
        fcd.ContactSet(t, 2)
    # closing the parents' Python objects leaves the child working: the C equilibrium
    # holds its system and contact set
    s.close()
    u, r = eq.solve()
    assert r.shape == (2, 2) and eq.contact_status == ["stick", "stick"]
