"""optimal's default: the interior solution with its proven interval; a vertex only when asked or
when --certify needs one."""

from dpexact.lp.summary import optimal_summary


def test_interior_by_default_vertex_on_request_or_for_a_certificate():
    kw = dict(method="ipm", mechanisms=["pf"])
    interior = optimal_summary(5, 5, "1/4", **kw)
    vertex = optimal_summary(5, 5, "1/4", crossover=True, **kw)
    certified = optimal_summary(5, 5, "log(2)", certify=True, **kw)
    assert interior["vertex"] is False and vertex["vertex"] is True
    assert certified["vertex"] is True and certified["certified"] == "exact"
    lo, hi = interior["optimal_total_error_bounds"]
    assert lo <= vertex["optimal_total_error"] * (1 + 1e-12) and vertex["optimal_total_error"] <= hi * (1 + 1e-12)
    assert abs(interior["ratios"]["pf"] - vertex["ratios"]["pf"]) <= interior["ratio_error_bounds"]["pf"] + vertex["ratio_error_bounds"]["pf"]
