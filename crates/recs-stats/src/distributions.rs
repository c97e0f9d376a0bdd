//! The distribution functions the tests need, computed here so that the crate depends on
//! no numerical library: `ln Γ` (Lanczos), the regularized incomplete beta function
//! (continued fraction, modified Lentz), the upper incomplete gamma function (series and
//! continued fraction), and from them the standard normal, Student t, binomial(n, ½) and
//! noncentral t distributions. `tests/oracle.rs` pins each to scipy.stats.
//!
//! Notation: `I_x(a, b)` is the regularized incomplete beta function, `Q(a, x)` the
//! upper regularized incomplete gamma function, `Φ` the standard normal distribution
//! function.

use std::f64::consts::{PI, SQRT_2};

/// `ln Γ(x)` for `x > 0`: the Lanczos approximation with `g = 7` and nine coefficients
/// (relative error below `1e-15` of `Γ`), with the reflection formula below `½`.
pub(crate) fn ln_gamma(x: f64) -> f64 {
    const COEFFICIENTS: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Γ(x) Γ(1 − x) = π / sin(πx).
        return (PI / (PI * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let t = x + 7.5;
    let mut sum = COEFFICIENTS[0];
    for (i, c) in COEFFICIENTS.iter().enumerate().skip(1) {
        sum += c / (x + i as f64);
    }
    0.5 * (2.0 * PI).ln() + (x + 0.5) * t.ln() - t + sum.ln()
}

/// `x^a y^b / B(a, b)` with `y = 1 − x` given separately (so that it keeps its precision
/// when `x` is close to 1): the factor in front of both the continued fraction of
/// `I_x(a, b)` and the recurrence `I_x(a + 1, b) = I_x(a, b) − x^a y^b / (a B(a, b))`.
fn beta_front(x: f64, y: f64, a: f64, b: f64) -> f64 {
    (ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * y.ln()).exp()
}

/// The continued fraction of `I_x(a, b)` (Numerical Recipes' `betacf`, evaluated by the
/// modified Lentz method), converging fast for `x < (a + 1) / (a + b + 2)`.
fn beta_continued_fraction(x: f64, a: f64, b: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let fix = |v: f64| if v.abs() < TINY { TINY } else { v };
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 / fix(1.0 - qab * x / qap);
    let mut h = d;
    for m in 1..100_000 {
        let m = f64::from(m);
        let m2 = 2.0 * m;
        let aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1.0 / fix(1.0 + aa * d);
        c = fix(1.0 + aa / c);
        h *= d * c;
        let aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1.0 / fix(1.0 + aa * d);
        c = fix(1.0 + aa / c);
        let delta = d * c;
        h *= delta;
        if (delta - 1.0).abs() < 1e-16 {
            break;
        }
    }
    h
}

/// The regularized incomplete beta function `I_x(a, b)`, with `y = 1 − x` passed
/// separately for precision; by the continued fraction on whichever side of the mean
/// converges (`I_x(a, b) = 1 − I_y(b, a)`).
pub(crate) fn regularized_beta(x: f64, y: f64, a: f64, b: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if y <= 0.0 {
        return 1.0;
    }
    if x < (a + 1.0) / (a + b + 2.0) {
        beta_front(x, y, a, b) * beta_continued_fraction(x, a, b) / a
    } else {
        1.0 - beta_front(x, y, a, b) * beta_continued_fraction(y, b, a) / b
    }
}

/// The upper regularized incomplete gamma function `Q(a, x)`: the series of `P(a, x)`
/// below `x = a + 1`, the continued fraction of `Q` above.
fn regularized_gamma_upper(a: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 1.0;
    }
    let log_front = -x + a * x.ln() - ln_gamma(a);
    if x < a + 1.0 {
        let (mut term, mut sum, mut ap) = (1.0 / a, 1.0 / a, a);
        for _ in 0..100_000 {
            ap += 1.0;
            term *= x / ap;
            sum += term;
            if term.abs() < sum.abs() * 1e-17 {
                break;
            }
        }
        1.0 - sum * log_front.exp()
    } else {
        const TINY: f64 = 1e-300;
        let mut b = x + 1.0 - a;
        let mut c = 1.0 / TINY;
        let mut d = 1.0 / b;
        let mut h = d;
        for i in 1..100_000 {
            let an = -f64::from(i) * (f64::from(i) - a);
            b += 2.0;
            d = an * d + b;
            if d.abs() < TINY {
                d = TINY;
            }
            c = b + an / c;
            if c.abs() < TINY {
                c = TINY;
            }
            d = 1.0 / d;
            let delta = d * c;
            h *= delta;
            if (delta - 1.0).abs() < 1e-16 {
                break;
            }
        }
        log_front.exp() * h
    }
}

/// `P(|Z| ≥ |z|)` for a standard normal `Z`: `Q(½, z²/2)` (that is, `erfc(|z|/√2)`), which
/// keeps its relative precision in the far tail.
pub(crate) fn normal_two_sided(z: f64) -> f64 {
    regularized_gamma_upper(0.5, z * z / 2.0)
}

/// `Φ(z)`, the standard normal distribution function.
pub(crate) fn normal_cdf(z: f64) -> f64 {
    let tail = 0.5 * normal_two_sided(z);
    if z < 0.0 { tail } else { 1.0 - tail }
}

/// `P(|T| ≥ |t|)` for Student's t with `df` degrees of freedom:
/// `I_{df/(df + t²)}(df/2, ½)`.
pub(crate) fn student_t_two_sided(t: f64, df: f64) -> f64 {
    if t.is_infinite() {
        return 0.0;
    }
    let denominator = df + t * t;
    regularized_beta(df / denominator, t * t / denominator, df / 2.0, 0.5)
}

/// The `q` quantile of Student's t with `df` degrees of freedom (`0 < q < 1`): bisection
/// on the two-sided tail until the bracket is two adjacent numbers.
pub(crate) fn student_t_quantile(q: f64, df: f64) -> f64 {
    if q < 0.5 {
        return -student_t_quantile(1.0 - q, df);
    }
    if q == 0.5 {
        return 0.0;
    }
    let target = 2.0 * (1.0 - q);
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    while student_t_two_sided(hi, df) > target {
        lo = hi;
        hi *= 2.0;
    }
    for _ in 0..2_000 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if student_t_two_sided(mid, df) > target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// `P(X ≤ k)` for `X ~ Binomial(n, ½)`: `I_{½}(n − k, k + 1)` for `k < n`, 1 for `k ≥ n`.
pub(crate) fn binomial_half_cdf(k: u64, n: u64) -> f64 {
    if k >= n {
        return 1.0;
    }
    regularized_beta(0.5, 0.5, (n - k) as f64, k as f64 + 1.0)
}

/// The distribution function `F(t; ν, δ)` of the noncentral t with `ν = df` degrees of
/// freedom and noncentrality `δ`: the Poisson mixture
///
/// `F(t; ν, δ) = Φ(−δ) + ½ Σ_{i≥0} [Pᵢ I_x(i + ½, ν/2) + (δ/√2) Qᵢ I_x(i + 1, ν/2)]`
///
/// for `t ≥ 0`, with `x = t²/(t² + ν)`, `λ = δ²/2`, `Pᵢ = e^{−λ} λⁱ / i!` and
/// `Qᵢ = e^{−λ} λⁱ / Γ(i + 3/2)` (Lenth 1989, algorithm AS 243), summed outward from the
/// Poisson mode `⌊λ⌋` in both directions with the recurrences of the incomplete beta
/// function (Benton & Krishnamoorthy 2003), so that large noncentralities need no long
/// run of negligible terms; each direction stops when a geometric bound on its remaining
/// terms is below `1e-17`. For `t < 0`, `F(t; ν, δ) = 1 − F(−t; ν, −δ)`.
pub(crate) fn noncentral_t_cdf(t: f64, df: f64, delta: f64) -> f64 {
    if t < 0.0 {
        return 1.0 - noncentral_t_cdf_nonnegative(-t, df, -delta);
    }
    noncentral_t_cdf_nonnegative(t, df, delta)
}

fn noncentral_t_cdf_nonnegative(t: f64, df: f64, delta: f64) -> f64 {
    let base = normal_cdf(-delta);
    if t == 0.0 {
        return base;
    }
    let denominator = t * t + df;
    let (x, y) = (t * t / denominator, df / denominator);
    let b = df / 2.0;
    let lambda = delta * delta / 2.0;
    if lambda == 0.0 {
        return (0.5 + 0.5 * regularized_beta(x, y, 0.5, b)).clamp(0.0, 1.0);
    }
    let c = delta / SQRT_2;
    let mode = lambda.floor();
    let ln_lambda = lambda.ln();
    let p_mode = (-lambda + mode * ln_lambda - ln_gamma(mode + 1.0)).exp();
    let q_mode = (-lambda + mode * ln_lambda - ln_gamma(mode + 1.5)).exp();
    // I_x(a, b) at a = i + ½ (`half`) and a = i + 1 (`whole`), and the terms
    // T(a) = x^a y^b / (a B(a, b)) of I_x(a + 1, b) = I_x(a, b) − T(a).
    let half_a = mode + 0.5;
    let whole_a = mode + 1.0;
    let i_half = regularized_beta(x, y, half_a, b);
    let i_whole = regularized_beta(x, y, whole_a, b);
    let t_half = beta_front(x, y, half_a, b) / half_a;
    let t_whole = beta_front(x, y, whole_a, b) / whole_a;
    let mut sum = p_mode * i_half + c * q_mode * i_whole;

    // Upward from the mode: i > λ, so P_{i+1}/P_i = λ/(i + 1) < 1.
    let (mut p, mut q) = (p_mode, q_mode);
    let (mut ih, mut iw, mut th, mut tw) = (i_half, i_whole, t_half, t_whole);
    let mut i = mode;
    for _ in 0..1_000_000 {
        let (ah, aw) = (i + 0.5, i + 1.0);
        ih = (ih - th).max(0.0);
        iw = (iw - tw).max(0.0);
        th *= x * (ah + b) / (ah + 1.0);
        tw *= x * (aw + b) / (aw + 1.0);
        i += 1.0;
        p *= lambda / i;
        q *= lambda / (i + 0.5);
        let term = p * ih + c.abs() * q * iw;
        sum += p * ih + c * q * iw;
        let ratio = lambda / (i + 1.0);
        if term * ratio / (1.0 - ratio) < 1e-17 {
            break;
        }
    }

    // Downward from the mode: i ≤ λ, so P_{i−1}/P_i = i/λ ≤ 1.
    let (mut p, mut q) = (p_mode, q_mode);
    let (mut ih, mut iw, mut th, mut tw) = (i_half, i_whole, t_half, t_whole);
    let mut i = mode;
    while i >= 1.0 {
        let (ah, aw) = (i + 0.5, i + 1.0);
        // T(a − 1) = T(a) · a / (x (a − 1 + b)), and I_x(a − 1, b) = I_x(a, b) + T(a − 1).
        th *= ah / (x * (ah - 1.0 + b));
        tw *= aw / (x * (aw - 1.0 + b));
        ih = (ih + th).min(1.0);
        iw = (iw + tw).min(1.0);
        p *= i / lambda;
        q *= (i + 0.5) / lambda;
        i -= 1.0;
        sum += p * ih + c * q * iw;
        let ratio = i / lambda;
        if ratio < 1.0 && (p + c.abs() * q) * ratio / (1.0 - ratio) < 1e-17 {
            break;
        }
    }
    (base + 0.5 * sum).clamp(0.0, 1.0)
}

/// The noncentrality `δ` at which `F(t; ν, δ) = target` (`0 < target < 1`). `F` falls
/// strictly as `δ` grows, so the root is bracketed by doubling steps from `δ = t` and
/// then found by bisection until the bracket is two adjacent numbers.
pub(crate) fn noncentral_t_noncentrality(t: f64, df: f64, target: f64) -> f64 {
    let f = |delta: f64| noncentral_t_cdf(t, df, delta) - target;
    let mut step = 1.0 + t.abs() / (2.0 * df).sqrt();
    let (mut lo, mut hi) = (t - step, t + step);
    while f(lo) < 0.0 {
        hi = lo;
        step *= 2.0;
        lo -= step;
    }
    while f(hi) > 0.0 {
        lo = hi;
        step *= 2.0;
        hi += step;
    }
    for _ in 0..2_000 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Reference values: scipy.stats 1.17 (t, norm, binom, nct); more in tests/oracle.rs.

    #[test]
    fn gamma_and_beta_by_hand() {
        assert!((ln_gamma(5.0) - 24f64.ln()).abs() < 1e-13);
        assert!((ln_gamma(0.5) - PI.sqrt().ln()).abs() < 1e-14);
        assert!((ln_gamma(0.1) - 2.252_712_651_734_206).abs() < 1e-13);
        // I_x(1, 1) = x and I_x(a, 1) = x^a.
        assert!((regularized_beta(0.3, 0.7, 1.0, 1.0) - 0.3).abs() < 1e-15);
        assert!((regularized_beta(0.6, 0.4, 3.0, 1.0) - 0.216).abs() < 1e-15);
        assert_eq!(regularized_beta(0.0, 1.0, 2.0, 3.0), 0.0);
        assert_eq!(regularized_beta(1.0, 0.0, 2.0, 3.0), 1.0);
    }

    #[test]
    fn normal_and_t_match_reference_values() {
        assert!((normal_two_sided(1.959_963_984_540_054) - 0.05).abs() < 1e-15);
        assert!((normal_cdf(-1.0) - 0.158_655_253_931_457_05).abs() < 1e-15);
        assert!((normal_cdf(2.5) - 0.993_790_334_674_223_8).abs() < 1e-15);
        // t with 1 degree of freedom is Cauchy: P(|T| ≥ 1) = ½.
        assert!((student_t_two_sided(1.0, 1.0) - 0.5).abs() < 1e-15);
        assert!((student_t_quantile(0.975, 10.0) - 2.228_138_851_986_274).abs() < 1e-12);
        assert!((student_t_quantile(0.025, 1.0) + 12.706_204_736_174_705).abs() < 1e-10);
        assert_eq!(student_t_two_sided(f64::INFINITY, 3.0), 0.0);
    }

    #[test]
    fn binomial_half_by_counting() {
        // P(X ≤ 3) for n = 10: (1 + 10 + 45 + 120) / 1024.
        assert!((binomial_half_cdf(3, 10) - 176.0 / 1024.0).abs() < 1e-15);
        assert_eq!(binomial_half_cdf(10, 10), 1.0);
        assert!((binomial_half_cdf(0, 4) - 1.0 / 16.0).abs() < 1e-16);
    }

    /// `scipy.stats.nct.cdf` and `scipy.stats.t.ppf` at the points of the fixture of
    /// `tools/stats_oracle.py`, from small to MovieLens-1M-sized degrees of freedom.
    #[test]
    fn noncentral_t_and_t_quantiles_match_the_scipy_fixture() {
        let fixture: serde_json::Value =
            serde_json::from_str(include_str!("../tests/fixtures/oracle.json")).unwrap();
        let points = fixture["noncentral_t"].as_array().unwrap();
        assert!(points.len() >= 10);
        for point in points {
            let get = |key: &str| point[key].as_f64().unwrap();
            let found = noncentral_t_cdf(get("t"), get("df"), get("delta"));
            assert!((found - get("cdf")).abs() < 1e-11, "{point}: {found}");
        }
        for point in fixture["t_quantiles"].as_array().unwrap() {
            let get = |key: &str| point[key].as_f64().unwrap();
            let expected = get("quantile");
            let found = student_t_quantile(get("q"), get("df"));
            assert!((found - expected).abs() < 1e-10 * expected.abs().max(1.0), "{point}");
        }
    }

    #[test]
    fn noncentral_t_reduces_to_central_and_inverts() {
        // δ = 0 is Student's t: F(2; 5, 0) = 1 − P(|T| ≥ 2)/2.
        let central = 1.0 - student_t_two_sided(2.0, 5.0) / 2.0;
        assert!((noncentral_t_cdf(2.0, 5.0, 0.0) - central).abs() < 1e-15);
        assert!((noncentral_t_cdf(-2.0, 5.0, 0.0) - (1.0 - central)).abs() < 1e-15);
        // scipy.stats.nct.cdf(2.0, 5, 1.0) and nct.cdf(30.0, 99, 31.0).
        assert!((noncentral_t_cdf(2.0, 5.0, 1.0) - 0.778_074_662_616_214_8).abs() < 1e-12);
        assert!((noncentral_t_cdf(30.0, 99.0, 31.0) - 0.321_311_536_507_716_27).abs() < 1e-10);
        for (t, df, target) in [(2.0, 5.0, 0.975), (-1.3, 12.0, 0.025), (40.0, 999.0, 0.5)] {
            let delta = noncentral_t_noncentrality(t, df, target);
            assert!((noncentral_t_cdf(t, df, delta) - target).abs() < 1e-13, "{t} {df}");
        }
    }
}
