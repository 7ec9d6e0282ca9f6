//! Decimal numbers as logs and flags write them (`33.9`, `0.85`, `218.62`),
//! read without the standard library's float parser.
//!
//! The core reads only a handful of such numbers (load times, memory
//! fractions, acceptance lengths), all short. `str::parse::<f64>` would link
//! a 10 KB table of powers of five and its algorithm into the web page for
//! them, about 3% of the page gzipped; this reader needs neither. For every
//! number with at most 15 significant digits and 22 decimals, the result is
//! the correctly rounded value, the same as `str::parse` gives (tested);
//! longer numbers come out within a few units in the last place, which no
//! use here can tell apart.

/// `12`, `12.5`, `.5` or `12.` (ASCII digits, at most one point, no sign or
/// exponent) as an `f64`; anything else is `None`.
pub(crate) fn parse(text: &str) -> Option<f64> {
    let (whole, fraction) = match text.split_once('.') {
        Some((whole, fraction)) => (whole, fraction),
        None => (text, ""),
    };
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if whole.len() + fraction.len() == 0 || !all_digits(whole) || !all_digits(fraction) {
        return None;
    }
    // The first 19 significant digits fit a u64; later ones cannot change an
    // f64 of these magnitudes beyond its last place.
    let mut mantissa: u64 = 0;
    let mut digits = 0u32;
    // Powers of ten still to apply: + for whole digits dropped, - per decimal.
    let mut exponent: i32 = 0;
    for (b, is_fraction) in whole
        .bytes()
        .map(|b| (b, false))
        .chain(fraction.bytes().map(|b| (b, true)))
    {
        let digit = u64::from(b - b'0');
        if mantissa == 0 && digit == 0 {
            // A leading zero: no significant digit yet.
            exponent = exponent.saturating_sub(i32::from(is_fraction));
            continue;
        }
        if digits < 19 {
            mantissa = mantissa * 10 + digit;
            digits += 1;
            exponent = exponent.saturating_sub(i32::from(is_fraction));
        } else if !is_fraction {
            exponent = exponent.saturating_add(1);
        }
    }
    Some(scale(mantissa, exponent))
}

/// `mantissa × 10^exponent`. Exact powers of ten up to 10^22 keep the
/// division or product a single rounding (Clinger's fast path).
fn scale(mantissa: u64, exponent: i32) -> f64 {
    const EXACT: [f64; 23] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
        1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ];
    // Precision beyond 2^53 is lost here, as the doc says.
    #[allow(clippy::cast_precision_loss)]
    let mut value = mantissa as f64;
    let mut left = exponent;
    while left != 0 {
        let step = left.clamp(-22, 22);
        let power = EXACT[step.unsigned_abs() as usize];
        if step < 0 {
            value /= power;
        } else {
            value *= power;
        }
        left -= step;
        if value == 0.0 || value.is_infinite() {
            break;
        }
    }
    value
}

#[cfg(test)]
mod tests {
    use super::parse;

    /// Exactly what `str::parse` gives, for the numbers logs and flags hold.
    #[test]
    fn agrees_with_the_standard_parser() {
        let mut cases: Vec<String> = [
            "0",
            "1",
            "0.9",
            "0.85",
            "33.9",
            "218.62",
            "5.65",
            "2.31",
            ".5",
            "12.",
            "007.50",
            "0.000001",
            "123456789012345",
            "1.000000000000001",
            "98.7654321",
            "65535",
            "0.0",
            "00",
            "4294967295",
            "0.1",
            "0.2",
            "0.3",
            "1.1",
            "2.675",
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
        // A sweep of short decimals, as load times and fractions are written.
        for whole in [0u32, 1, 3, 9, 10, 42, 99, 100, 511, 1000, 86_399] {
            for fraction in 0..1000 {
                cases.push(format!("{whole}.{fraction}"));
                cases.push(format!("{whole}.{fraction:03}"));
            }
        }
        for text in &cases {
            let expected: f64 = text.parse().expect("a valid decimal");
            assert_eq!(parse(text), Some(expected), "{text}");
        }
    }

    #[test]
    fn long_numbers_stay_close() {
        for text in [
            "3.14159265358979323846264338327950288",
            "123456789012345678901234567890",
            "0.000000000000000000000000000123456789",
        ] {
            let expected: f64 = text.parse().expect("a valid decimal");
            let got = parse(text).expect("read");
            assert!(
                ((got - expected) / expected).abs() < 1e-14,
                "{text}: {got} vs {expected}"
            );
        }
    }

    #[test]
    fn refuses_what_is_not_a_plain_decimal() {
        for text in [
            "", ".", "-1", "+1", "1e3", "1.2.3", "0x10", " 1", "1 ", "١", "1_000", "inf", "NaN",
        ] {
            assert_eq!(parse(text), None, "{text:?}");
        }
    }
}
