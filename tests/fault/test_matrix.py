"""One case per cell of the fault matrix (see matrix.py): the output, under that fault kind,
shows what its predicted guarantee allows. Run through `scripts/fault-matrix`."""

from __future__ import annotations

import matrix


def test_cell(cell_id: str, result: matrix.Result) -> None:
    cell = result.by_id()[cell_id]
    assert cell.ok, cell.row + "\n" + "\n".join(cell.log)
