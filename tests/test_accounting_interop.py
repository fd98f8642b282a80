"""dpexact's certified intervals beside the real dp_accounting (Google) and prv_accountant (Microsoft):
their estimates lie within their own stated accuracy of dpexact's interval, and where dp_accounting floors
δ at its truncation, dpexact's exact value is far below it."""

import math

from dpexact.accounting.accountant import Accountant


def test_gaussian_and_laplace_pld_agree_with_dp_accounting():
    from dp_accounting.pld import privacy_loss_distribution as pld

    ours = Accountant([{"kind": "gaussian", "sigma": "2", "count": 3}, {"kind": "laplace", "scale": "2", "count": 2}])
    d = ours.delta_for_epsilon("1", 1e-2)
    theirs = (pld.from_gaussian_mechanism(2.0, value_discretization_interval=1e-3).self_compose(3)
              .compose(pld.from_laplace_mechanism(2.0, value_discretization_interval=1e-3).self_compose(2)))
    g = theirs.get_delta_for_epsilon(1.0)
    # dp_accounting's pessimistic estimate: above the truth up to its discretisation error (~k·h)
    assert d.lower * (1 - 1e-9) <= g <= d.upper + 5 * 5e-3


def test_subsampled_gaussian_epsilon_agrees_with_dp_accounting_and_prv():
    from dp_accounting import dp_event
    from dp_accounting.pld import pld_privacy_accountant

    acc = Accountant([{"kind": "gaussian", "sigma": "1", "poisson": "1/10", "count": 30}])
    e = acc.epsilon_for_delta("1e-5", 1e-3)
    pa = pld_privacy_accountant.PLDAccountant()
    pa.compose(dp_event.PoissonSampledDpEvent(0.1, dp_event.GaussianDpEvent(1.0)), 30)
    g = pa.get_epsilon(1e-5)
    assert e.lower - 0.02 <= g <= e.upper + 0.02  # their default grid: ~1e-2 in ε at this size
    import prv_accountant as prv
    a = prv.PRVAccountant(prvs=[prv.PoissonSubsampledGaussianMechanism(noise_multiplier=1.0, sampling_probability=0.1)],
                          max_self_compositions=[30], eps_error=0.01, delta_error=1e-9)
    lo, est, hi = a.compute_epsilon(delta=1e-5, num_self_compositions=[30])
    assert lo - 1e-9 <= e.upper and e.lower <= hi + 1e-9  # their bracket overlaps ours


def test_dp_accounting_floors_the_200_fold_rr_where_dpexact_is_exact():
    from dp_accounting.pld import privacy_loss_distribution as pld

    ours = Accountant([{"kind": "randomized-response", "epsilon": "log(3)", "count": 200}]).delta_for_epsilon("199*log(3)")
    assert 0 < ours.upper < 1e-25
    theirs = pld.from_randomized_response(0.5, 2, value_discretization_interval=1e-4).self_compose(200)
    g = theirs.get_delta_for_epsilon(199 * math.log(3))
    assert g >= ours.upper  # pessimistic, but not the exact value: its truncated tail goes to +∞


def test_weakly_subsampled_gaussian_has_a_finite_upper_end():
    """σ = 2, q = 1/100: the heavy tilted tail once pushed θ past its window (upper end ∞); dp_accounting's
    pessimistic ε lies in the interval up to its own discretisation error."""
    from dp_accounting import dp_event
    from dp_accounting.pld import pld_privacy_accountant

    e = Accountant([{"kind": "gaussian", "sigma": "2", "poisson": "1/100", "count": 100}]).epsilon_for_delta("1e-5", 1e-2)
    assert math.isfinite(e.upper) and e.upper - e.lower <= 1e-2 * e.upper
    pa = pld_privacy_accountant.PLDAccountant()
    pa.compose(dp_event.PoissonSampledDpEvent(0.01, dp_event.GaussianDpEvent(2.0)), 100)
    assert e.lower <= pa.get_epsilon(1e-5) <= e.upper + 1e-3
