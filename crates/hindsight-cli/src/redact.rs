//! `--redact`: masks what identifies people and machines before a report is
//! shared, on top of the credentials the core always redacts.
//!
//! Works on the report's JSON form so every string field is covered,
//! including ones added later, and gives the same value the same mask
//! everywhere in the report (`10.1.2.3` is `<ip-1>` in the command, the
//! server's host and the suggestion alike), so the report still reads.

use std::collections::HashMap;
use std::sync::LazyLock;

use hindsight_core::Report;
use regex::{Captures, Regex};
use serde_json::Value;

/// E-mail addresses, ssh `user@host` targets, home folders and IPv4
/// addresses, in the order they are tried (an e-mail is not a `user@host`).
static PATTERN: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?P<email>\b[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b)",
        r"|(?P<user>\b[A-Za-z_][A-Za-z0-9_.-]*)@(?P<host>[A-Za-z0-9][A-Za-z0-9.-]*)",
        r"|(?P<home>/(?:home|Users)/)(?P<homeuser>[^/\s'\x22]+)",
        r"|(?P<ip>\b(?:25[0-5]|2[0-4]\d|1?\d?\d)(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}\b)",
    ))
    .ok()
});

/// Numbered masks, one per distinct value and kind.
#[derive(Default)]
struct Masks {
    seen: HashMap<(&'static str, String), usize>,
    next: HashMap<&'static str, usize>,
}

impl Masks {
    fn mask(&mut self, kind: &'static str, value: &str) -> String {
        let key = (kind, value.to_owned());
        let n = match self.seen.get(&key) {
            Some(&n) => n,
            None => {
                let counter = self.next.entry(kind).or_insert(0);
                *counter += 1;
                self.seen.insert(key, *counter);
                *counter
            }
        };
        format!("<{kind}-{n}>")
    }

    /// Loopback and wildcard addresses identify no machine: kept as they
    /// are, so `curl http://127.0.0.1:8000` still reads.
    fn ip(&mut self, ip: &str) -> String {
        if ip.starts_with("127.") || ip == "0.0.0.0" {
            ip.to_owned()
        } else {
            self.mask("ip", ip)
        }
    }

    /// A host is an IP (masked as one) or a name.
    fn host(&mut self, host: &str) -> String {
        let is_ip = PATTERN
            .as_ref()
            .and_then(|re| re.captures(host))
            .is_some_and(|c| c.name("ip").is_some_and(|m| m.as_str() == host));
        if is_ip {
            self.ip(host)
        } else {
            self.mask("host", host)
        }
    }

    fn text(&mut self, text: &str) -> String {
        let Some(re) = PATTERN.as_ref() else {
            return text.to_owned();
        };
        re.replace_all(text, |c: &Captures<'_>| {
            if let Some(m) = c.name("email") {
                self.mask("email", m.as_str())
            } else if let (Some(user), Some(host)) = (c.name("user"), c.name("host")) {
                let user = self.mask("user", user.as_str());
                format!("{user}@{}", self.host(host.as_str()))
            } else if let (Some(home), Some(user)) = (c.name("home"), c.name("homeuser")) {
                format!("{}{}", home.as_str(), self.mask("user", user.as_str()))
            } else if let Some(m) = c.name("ip") {
                self.ip(m.as_str())
            } else {
                c.get(0).map(|m| m.as_str().to_owned()).unwrap_or_default()
            }
        })
        .into_owned()
    }

    fn value(&mut self, value: &mut Value) {
        match value {
            Value::String(s) => *s = self.text(s),
            Value::Array(items) => items.iter_mut().for_each(|v| self.value(v)),
            Value::Object(map) => map.values_mut().for_each(|v| self.value(v)),
            _ => {}
        }
    }
}

/// The report with identifying values masked. Enum fields (formats, engines,
/// statuses) never match the patterns, so the result is a valid report; if
/// it somehow were not, the unmasked report is never returned in its place.
pub(crate) fn report(report: Report) -> Report {
    let mut masks = Masks::default();
    let Ok(mut value) = serde_json::to_value(&report) else {
        return empty_like(report);
    };
    masks.value(&mut value);
    serde_json::from_value(value).unwrap_or_else(|_| empty_like(report))
}

/// A report that keeps only the counts' shape: better than leaking.
fn empty_like(mut report: Report) -> Report {
    report.checkpoints.clear();
    report.servers.clear();
    report.findings.clear();
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_consistently() {
        let mut masks = Masks::default();
        assert_eq!(
            masks.text("ssh root@10.1.2.3 'tail /home/alice/x.log'; ping 10.1.2.3"),
            "ssh <user-1>@<ip-1> 'tail /home/<user-2>/x.log'; ping <ip-1>"
        );
        assert_eq!(
            masks.text("mail bob@example.com, host gpu01"),
            "mail <email-1>, host gpu01"
        );
        assert_eq!(masks.text("ssh ubuntu@gpu-node-7"), "ssh <user-3>@<host-1>");
        assert_eq!(
            masks.text("version 0.4.5 port 8000"),
            "version 0.4.5 port 8000"
        );
    }
}
