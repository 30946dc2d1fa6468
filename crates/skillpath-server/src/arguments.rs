//! A built-in tool's arguments, read as its parameter type: what every parameter type does
//! ([`Params`]), reading JSON arguments with errors that name the argument, and whole numbers
//! checked against their bounds as they are read ([`Whole`]).

use std::borrow::Cow;
use std::fmt;
use std::future::Future;

use rmcp::model::JsonObject;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::de::{self, DeserializeOwned, Deserializer, Unexpected};

use crate::state::SkillServer;
use crate::tool_error::{ArgumentError, ToolError};
use skillpath_app::Permit;

/// The parameters of a built-in tool: its input schema (derived), how its arguments are read,
/// and its work.
pub(crate) trait Params: DeserializeOwned + JsonSchema + Send {
    /// Reads the tool's arguments: as JSON into the parameters ([`from_arguments`]), unless
    /// the tool says otherwise.
    fn parse(arguments: &JsonObject) -> Result<Self, ToolError> {
        Ok(from_arguments(arguments)?)
    }

    /// Runs the tool with the permit the rules gave its caller: the text of its result, or an
    /// error the model can fix.
    fn run(
        self,
        server: &SkillServer,
        permit: &Permit,
    ) -> impl Future<Output = Result<String, ToolError>> + Send;
}

/// `arguments` read as `P`; an error names the argument that does not fit (`limit`,
/// `arguments`) and what it must be.
pub(crate) fn from_arguments<P: DeserializeOwned>(
    arguments: &JsonObject,
) -> Result<P, ArgumentError> {
    let value = serde_json::Value::Object(arguments.clone());
    serde_path_to_error::deserialize(&value).map_err(|error| {
        let path = error.path().to_string();
        let problem = error.into_inner().to_string();
        if path == "." {
            ArgumentError::Shape(problem)
        } else {
            ArgumentError::Field { path, problem }
        }
    })
}

/// The largest revision number a store holds (its columns are signed 64-bit integers).
pub(crate) const MAX_REVISION: u64 = i64::MAX as u64;

/// A revision number.
pub(crate) type Revision = Whole<1, MAX_REVISION>;

/// The item the `name` argument names (`@namespace/name`, or a name alone for `@global`), or
/// the argument's error.
pub(crate) fn full_name(name: &str) -> Result<skillpath_model::FullName, ArgumentError> {
    skillpath_model::FullName::parse(name).map_err(|error| ArgumentError::Field {
        path: "name".to_owned(),
        problem: error.to_string(),
    })
}

/// A whole number from `MIN` to `MAX`, checked as it is read: a number out of range, a
/// fraction or a negative number is refused with the range, never cast into it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Whole<const MIN: u64, const MAX: u64>(u64);

impl<const MIN: u64, const MAX: u64> Whole<MIN, MAX> {
    /// The number.
    pub(crate) fn get(self) -> u64 {
        self.0
    }

    /// The number as a count of items (saturating where `usize` is narrower than `MAX`; the
    /// counts taken are a few hundred at most).
    pub(crate) fn count(self) -> usize {
        usize::try_from(self.0).unwrap_or(usize::MAX)
    }
}

impl<'de, const MIN: u64, const MAX: u64> serde::Deserialize<'de> for Whole<MIN, MAX> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_u64(WholeVisitor::<MIN, MAX>)
    }
}

struct WholeVisitor<const MIN: u64, const MAX: u64>;

impl<const MIN: u64, const MAX: u64> de::Visitor<'_> for WholeVisitor<MIN, MAX> {
    type Value = Whole<MIN, MAX>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "a whole number from {MIN} to {MAX}")
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<Self::Value, E> {
        if (MIN..=MAX).contains(&value) {
            Ok(Whole(value))
        } else {
            Err(E::invalid_value(Unexpected::Unsigned(value), &self))
        }
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<Self::Value, E> {
        match u64::try_from(value) {
            Ok(value) => self.visit_u64(value),
            Err(_) => Err(E::invalid_value(Unexpected::Signed(value), &self)),
        }
    }
}

impl<const MIN: u64, const MAX: u64> JsonSchema for Whole<MIN, MAX> {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        format!("Whole_{MIN}_{MAX}").into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": "integer", "minimum": MIN, "maximum": MAX})
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{Revision, Whole, from_arguments};
    use crate::tool_error::ArgumentError;

    #[derive(Debug, serde::Deserialize)]
    struct Limited {
        limit: Option<Whole<1, 500>>,
        revision: Option<Revision>,
    }

    fn read(arguments: serde_json::Value) -> Result<Limited, ArgumentError> {
        from_arguments(arguments.as_object().expect("an object"))
    }

    #[test]
    fn whole_numbers_in_range_are_read() {
        let limited = read(json!({"limit": 500, "revision": 9_223_372_036_854_775_807_u64}))
            .expect("in range");
        assert_eq!(limited.limit.map(Whole::get), Some(500));
        assert_eq!(
            limited.revision.map(Whole::count),
            Some(usize::try_from(i64::MAX).unwrap_or(usize::MAX))
        );
        assert!(read(json!({})).expect("none").limit.is_none());
    }

    #[test]
    fn a_number_out_of_range_is_refused_with_its_argument_and_the_range() {
        for (arguments, message) in [
            (
                json!({"limit": 0}),
                "argument `limit`: invalid value: integer `0`, expected a whole number from 1 to 500",
            ),
            (
                json!({"limit": 501}),
                "argument `limit`: invalid value: integer `501`, expected a whole number from 1 to 500",
            ),
            (
                json!({"limit": -1}),
                "argument `limit`: invalid value: integer `-1`, expected a whole number from 1 to 500",
            ),
            (
                json!({"limit": 2.5}),
                "argument `limit`: invalid type: floating point `2.5`, expected a whole number from 1 to 500",
            ),
            (
                json!({"limit": "10"}),
                "argument `limit`: invalid type: string \"10\", expected a whole number from 1 to 500",
            ),
            (
                json!({"revision": 0}),
                "argument `revision`: invalid value: integer `0`, expected a whole number from 1 to 9223372036854775807",
            ),
            (
                json!({"revision": 9_223_372_036_854_775_808_u64}),
                "argument `revision`: invalid value: integer `9223372036854775808`, expected a whole number from 1 to 9223372036854775807",
            ),
        ] {
            assert_eq!(read(arguments).expect_err("refused").to_string(), message);
        }
    }
}
