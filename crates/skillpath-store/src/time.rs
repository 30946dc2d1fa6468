//! Timestamps as RFC 3339 UTC text, without a date-time dependency.

use std::time::{SystemTime, UNIX_EPOCH};

/// Now, as `2026-11-30T14:05:09.123Z`.
pub fn now_rfc3339() -> String {
    let since = since_epoch();
    format_rfc3339(since.as_secs(), since.subsec_millis())
}

/// `seconds` from now, as RFC 3339 UTC (saturating at the far future).
pub fn rfc3339_from_now(seconds: u64) -> String {
    let since = since_epoch();
    format_rfc3339(
        since.as_secs().saturating_add(seconds),
        since.subsec_millis(),
    )
}

/// `seconds` ago, as RFC 3339 UTC (the epoch at the earliest).
pub fn rfc3339_before_now(seconds: u64) -> String {
    let since = since_epoch();
    format_rfc3339(
        since.as_secs().saturating_sub(seconds),
        since.subsec_millis(),
    )
}

/// The time since the Unix epoch (zero for a clock set before it).
fn since_epoch() -> std::time::Duration {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
}

/// Seconds and milliseconds since the Unix epoch, as RFC 3339 UTC.
pub fn format_rfc3339(seconds: u64, millis: u32) -> String {
    let days = seconds / 86_400;
    let rest = seconds % 86_400;
    let (year, month, day) = civil_from_days(days as i64);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

/// Howard Hinnant's days-to-civil algorithm (proleptic Gregorian calendar).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_known_instants() {
        assert_eq!(format_rfc3339(0, 0), "1970-01-01T00:00:00.000Z");
        assert_eq!(format_rfc3339(951_782_400, 5), "2000-02-29T00:00:00.005Z");
        assert_eq!(
            format_rfc3339(1_796_051_109, 123),
            "2026-11-30T15:05:09.123Z"
        );
    }
}
