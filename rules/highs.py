"""HiGHS for the solver's integer programs: one silent instance per thread, no-good cuts.

An integer program here maximises ``cost`` over whole ``0 <= x <= ub`` with
rows ``lo <= A x <= hi``; it is first solved as a linear program, whose
optimum is the integer one where it is whole (most moves), and only then as
an integer program.
"""

from __future__ import annotations

import os
import threading

import highspy
import numpy as np

_DIVE_STEPS = 40  # relaxations a dive may solve before the integer search takes over
_BANNER_LOCK = threading.Lock()
_PER_THREAD = threading.local()


def _highs() -> highspy.Highs:
    """This thread's silent HiGHS instance, emptied for a new program (made once per thread)."""
    h = getattr(_PER_THREAD, "highs", None)
    if h is None:
        h = _PER_THREAD.highs = _new_highs()
    else:
        h.clearModel()
    return h


def _new_highs() -> highspy.Highs:
    """A silent HiGHS instance.

    highspy prints its "Running HiGHS ..." banner to the process's standard
    output (file descriptor 1, from C++) when ``Highs()`` is created, before
    any option can be set; it is sent to /dev/null for that moment, so that a
    ``--json`` command prints one JSON document and a server's log stays clean.
    The instance is kept for the thread, so this happens once per thread.
    """
    with _BANNER_LOCK:
        try:
            import sys

            sys.stdout.flush()
        except (AttributeError, ValueError):
            pass
        saved = os.dup(1)
        try:
            with open(os.devnull, "wb") as null:
                os.dup2(null.fileno(), 1)
                h = highspy.Highs()
                h.setOptionValue("output_flag", False)
                h.setOptionValue("log_to_console", False)
        finally:
            os.dup2(saved, 1)
            os.close(saved)
    return h


class Program:
    """One integer program in HiGHS: maximise ``cost``, ``0 <= x <= ub``, rows ``lo <= A x <= hi``;
    no-good cuts added between runs.

    ``primary`` is the weight of the first of the objectives the cost stacks
    (the later ones together stay below it, so the primary objective is
    ``cost // primary``).  The search stops at the first whole solution whose
    primary objective reaches the linear program's bound on it: that
    solution is optimal in the primary objective (proved by the bound), and
    the later objectives are as good as the search found them by then.
    With ``primary=0`` the search proves the optimum of the whole cost.
    """

    def __init__(self, cost, A, row_lo, row_hi, feasibility: bool, ub: np.ndarray, primary: int = 0) -> None:
        n = len(cost)
        h = _highs()
        h.setOptionValue("mip_rel_gap", 0.0)
        h.setOptionValue("mip_abs_gap", 0.5)  # every objective coefficient is whole
        h.setOptionValue("threads", 1)
        # presolve and the costlier root heuristics take far longer than the search itself here;
        # only the feasibility jump pays, when any layout at all is sought (arrange)
        h.setOptionValue("presolve", "off")
        for heuristic in ("rins", "rens", "root_reduced_cost"):
            h.setOptionValue(f"mip_heuristic_run_{heuristic}", False)
        h.setOptionValue("mip_heuristic_run_feasibility_jump", feasibility)
        h.setOptionValue("objective_target", -np.inf)  # set in run() from the linear program's bound
        lp = highspy.HighsLp()
        lp.num_col_ = n
        lp.num_row_ = A.shape[0]
        lp.col_cost_ = np.asarray(cost, dtype=float)
        lp.col_lower_ = np.zeros(n)
        lp.col_upper_ = ub
        lp.row_lower_ = row_lo
        lp.row_upper_ = row_hi
        lp.sense_ = highspy.ObjSense.kMaximize
        # first as a linear program: where its optimum is whole it is the integer optimum too,
        # and the integer search (and its setup) is skipped; see run()
        csc = A.T  # columns as rows
        nz_col, nz_row = np.nonzero(csc)
        lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
        lp.a_matrix_.start_ = np.searchsorted(nz_col, np.arange(n + 1)).astype(np.int32)
        lp.a_matrix_.index_ = nz_row.astype(np.int32)
        lp.a_matrix_.value_ = csc[nz_col, nz_row].astype(float)
        h.passModel(lp)
        self.h, self.n, self.relaxed, self.primary = h, n, True, primary
        self.cost, self.ub = np.asarray(cost, dtype=float), np.asarray(ub, dtype=float)

    def run(self) -> np.ndarray | None:
        """The next whole solution (see the class), or None when there is none."""
        if self.relaxed:
            self.relaxed = False
            h = self.h
            h.run()
            if h.getModelStatus() == highspy.HighsModelStatus.kInfeasible:
                return None  # no whole solution either
            x = np.asarray(h.getSolution().col_value)
            whole = h.getModelStatus() == highspy.HighsModelStatus.kOptimal and np.all(np.abs(x - np.rint(x)) < 1e-9)
            start = None
            if not whole and self.primary:
                # no whole solution beats the relaxation: the primary objective is at most its bound
                target = np.floor(h.getInfo().objective_function_value / self.primary + 1e-9) * self.primary
                start = self._dive()
                if start is not None and self.cost @ start >= target:
                    whole, x = True, start
                else:
                    h.setOptionValue("objective_target", float(target))
            # from here on an integer program (a cut may follow a whole optimum)
            h.changeColsIntegrality(self.n, np.arange(self.n, dtype=np.int32),
                                    np.array([highspy.HighsVarType.kInteger] * self.n))
            if whole:
                return np.rint(x).astype(int)
            # the relaxation's point is no start for the search (HiGHS would try to repair it first);
            # a dive's whole solution is
            h.clearSolver()
            if start is not None:
                sol = highspy.HighsSolution()
                sol.col_value = list(start.astype(float))
                h.setSolution(sol)
        self.h.run()
        if self.h.getModelStatus() not in (highspy.HighsModelStatus.kOptimal, highspy.HighsModelStatus.kObjectiveTarget):
            return None
        return np.rint(np.asarray(self.h.getSolution().col_value)[: self.n]).astype(int)  # cut columns aside

    def _dive(self) -> np.ndarray | None:
        """A whole solution found by diving from the relaxation's optimum, or None.

        Fix the fractional column nearest its ceiling at that ceiling and
        solve the relaxation again (from the last basis: a few iterations),
        until the optimum is whole or the rows can no longer be met.  The
        columns' bounds are restored afterwards.
        """
        h = self.h
        for _ in range(_DIVE_STEPS):
            x = np.asarray(h.getSolution().col_value)
            part = x - np.floor(x)
            fractional = np.flatnonzero((part > 1e-9) & (part < 1 - 1e-9))
            if not len(fractional):
                found = np.rint(x).astype(np.int64)
                break
            j = int(fractional[np.argmax(part[fractional])])
            h.changeColBounds(j, float(np.ceil(x[j])), float(np.ceil(x[j])))
            h.run()
            if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
                found = None
                break
        else:
            found = None
        h.changeColsBounds(self.n, np.arange(self.n, dtype=np.int32), np.zeros(self.n), self.ub)
        return found

    def cut(self, x: np.ndarray) -> None:
        """Forbid exactly the integer vector ``x`` (0 <= x <= ub), every other one staying feasible.

        For each column laid, binaries ``down`` (x_j <= x*_j - 1) and, below its
        bound, ``up`` (x_j >= x*_j + 1); then some column not laid is laid, or
        some ``down``/``up`` holds.
        """
        h, ub = self.h, self.ub
        n = len(x)
        laid = np.flatnonzero(x)
        start = h.getNumCol()
        extra: list[tuple[int, int]] = []  # (column, kind): 0 down, 1 up
        for j in laid:
            extra.append((int(j), 0))
            if x[j] < ub[j]:
                extra.append((int(j), 1))
        for k, (j, kind) in enumerate(extra):
            d = start + k
            h.addCol(0.0, 0.0, 1.0, 0, np.array([], dtype=np.int32), np.array([], dtype=float))
            h.changeColIntegrality(d, highspy.HighsVarType.kInteger)
            if kind == 0:  # x_j + (ub_j - x*_j + 1) d <= ub_j
                h.addRow(-np.inf, float(ub[j]), 2, np.array([j, d], dtype=np.int32),
                         np.array([1.0, float(ub[j] - x[j] + 1)]))
            else:  # x_j - (x*_j + 1) d >= 0
                h.addRow(0.0, np.inf, 2, np.array([j, d], dtype=np.int32), np.array([1.0, -float(x[j] + 1)]))
        others = np.setdiff1d(np.arange(n), laid).astype(np.int32)
        idx = np.concatenate([others, np.arange(start, start + len(extra), dtype=np.int32)])
        h.addRow(1.0, np.inf, len(idx), idx, np.ones(len(idx)))


def assignment(gain: np.ndarray) -> list[tuple[int, int]]:
    """The (row, column) pairs of ``gain`` that add up to most, each row and column in one pair at most.

    Pairs of negative gain are left out: leaving a row or a column unpaired
    gains nothing.  An assignment's linear program has whole vertices, so
    HiGHS's simplex optimum is the whole one.  It uses an instance of its own
    per thread: an assignment never disturbs a solver program between runs.
    """
    gain = np.asarray(gain, dtype=float)
    rows, cols = gain.shape
    keep = np.flatnonzero(gain.ravel() > 0)  # a pair gaining nothing never helps
    if not len(keep):
        return []
    h = getattr(_PER_THREAD, "assigner", None)
    if h is None:
        h = _PER_THREAD.assigner = _new_highs()
        # HiGHS runs every instance of a process on one scheduler, made by the first run with that run's
        # threads: any other count fails every later run, the solver's (threads 1) among them
        h.setOptionValue("threads", 1)
    h.clearModel()
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = len(keep), rows + cols
    lp.col_cost_ = gain.ravel()[keep]
    lp.col_lower_, lp.col_upper_ = np.zeros(len(keep)), np.ones(len(keep))
    lp.row_lower_, lp.row_upper_ = np.zeros(rows + cols), np.ones(rows + cols)
    lp.sense_ = highspy.ObjSense.kMaximize
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise  # each pair's column: its row's and its column's limit
    lp.a_matrix_.start_ = np.arange(0, 2 * len(keep) + 1, 2, dtype=np.int32)
    lp.a_matrix_.index_ = np.stack([keep // cols, rows + keep % cols], axis=1).ravel().astype(np.int32)
    lp.a_matrix_.value_ = np.ones(2 * len(keep))
    h.passModel(lp)
    h.run()
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        raise RuntimeError(f"HiGHS found no optimal assignment ({h.modelStatusToString(h.getModelStatus())})")
    chosen = keep[np.asarray(h.getSolution().col_value) > 0.5]
    return sorted((int(k // cols), int(k % cols)) for k in chosen)
