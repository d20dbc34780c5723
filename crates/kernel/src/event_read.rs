//! Reading a ledger event back when its kind is already known.
//!
//! A [`KernelEvent`] is stored as JSON with its kind as one more key: `{"call":…,"kind":
//! "admitted",…}`, keys in byte order. serde reads such an internally tagged enum by first
//! buffering the whole object into an intermediate tree, because the tag may come anywhere in it
//! — and in canonical JSON it usually comes after the fields. That buffering was most of what
//! verify and replay spent reading a payload (about a microsecond a row on the bench's ledger).
//!
//! The ledger keeps the kind in a column of its own, so a reader need not look for it: it can go
//! straight to the variant's fields. [`KernelEvent::from_payload`] does that through `ByKind`,
//! the enum's externally tagged twin declared with it in `event.rs`, and a deserializer that
//! hands serde the column's kind as the variant and the payload's object as its fields. The
//! payload's own `kind` key is not a field of any variant; it is checked against the column and
//! skipped.
//!
//! It accepts less than the tagged form, never more: an object whose `kind` key is the column's,
//! once. Anything else — another kind, none, two, an array, an unknown kind — is an error, and
//! a caller that must say exactly what is wrong (verify) reads the payload the tagged way then.

use crate::event::{ByKind, KernelEvent};
use serde::de::{self, DeserializeSeed, Deserializer, EnumAccess, IntoDeserializer, MapAccess, VariantAccess, Visitor};
use serde::{Deserialize, forward_to_deserialize_any};
use std::fmt;

impl KernelEvent {
    /// The event whose kind is `kind` (the ledger's column) and whose JSON is `payload`. The
    /// payload's own `kind` must be `kind`.
    pub fn from_payload(kind: &str, payload: &str) -> Result<KernelEvent, serde_json::Error> {
        let mut json = serde_json::Deserializer::from_str(payload);
        let event = ByKind::deserialize(Kinded { kind, json: &mut json })?;
        json.end()?;
        Ok(event.into())
    }
}

/// The payload as an externally tagged enum: the variant is `kind`, its fields the JSON object.
struct Kinded<'k, 'j, 'de> {
    kind: &'k str,
    json: &'j mut serde_json::Deserializer<serde_json::de::StrRead<'de>>,
}

impl<'de> Deserializer<'de> for Kinded<'_, '_, 'de> {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::custom("a kernel event is read as an enum"))
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        visitor.visit_enum(self)
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option
        unit unit_struct newtype_struct seq tuple tuple_struct map struct identifier ignored_any
    }
}

impl<'de> EnumAccess<'de> for Kinded<'_, '_, 'de> {
    type Error = serde_json::Error;
    type Variant = Self;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self), Self::Error> {
        let variant = seed.deserialize(self.kind.into_deserializer())?;
        Ok((variant, self))
    }
}

impl<'de> VariantAccess<'de> for Kinded<'_, '_, 'de> {
    type Error = serde_json::Error;

    fn unit_variant(self) -> Result<(), Self::Error> {
        Err(de::Error::custom("every kernel event has fields"))
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, _: T) -> Result<T::Value, Self::Error> {
        Err(de::Error::custom("every kernel event has named fields"))
    }

    fn tuple_variant<V: Visitor<'de>>(self, _: usize, _: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::custom("every kernel event has named fields"))
    }

    fn struct_variant<V: Visitor<'de>>(self, _: &'static [&'static str], visitor: V) -> Result<V::Value, Self::Error> {
        // A map only: the tagged form would also take an array, but no writer makes one.
        self.json.deserialize_map(Fields { kind: self.kind, visitor })
    }
}

/// The variant's own visitor, given the object without its `kind` key.
struct Fields<'k, V> {
    kind: &'k str,
    visitor: V,
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Fields<'_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the fields of a {} event", self.kind)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        let mut fields = WithoutKind { map, kind: self.kind, seen: false };
        let value = self.visitor.visit_map(&mut fields)?;
        // A variant's visitor reads to the end of the object, so every key has been seen.
        if !fields.seen {
            return Err(de::Error::missing_field("kind"));
        }
        Ok(value)
    }
}

/// An object's entries with its `kind` entry checked and left out.
struct WithoutKind<'k, A> {
    map: A,
    kind: &'k str,
    seen: bool,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for WithoutKind<'_, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, A::Error> {
        let mut seed = Some(seed);
        loop {
            match self.map.next_key_seed(Key { seed: &mut seed })? {
                None => return Ok(None),
                Some(Some(key)) => return Ok(Some(key)),
                Some(None) => {
                    if self.seen {
                        return Err(de::Error::duplicate_field("kind"));
                    }
                    self.seen = true;
                    if !self.map.next_value_seed(IsKind(self.kind))? {
                        return Err(de::Error::custom(format_args!("the payload's kind is not {}", self.kind)));
                    }
                }
            }
        }
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, A::Error> {
        self.map.next_value_seed(seed)
    }
}

/// A key: `None` for `kind`, else what the variant's own key seed makes of it. The seed is taken
/// only when used, so that after `kind` the next key still has it.
struct Key<'s, K> {
    seed: &'s mut Option<K>,
}

impl<'de, K: DeserializeSeed<'de>> DeserializeSeed<'de> for Key<'_, K> {
    type Value = Option<K::Value>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de, K: DeserializeSeed<'de>> Visitor<'de> for Key<'_, K> {
    type Value = Option<K::Value>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a field name")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Self::Value, E> {
        if key == "kind" {
            return Ok(None);
        }
        match self.seed.take() {
            Some(seed) => seed.deserialize(key.into_deserializer()).map(Some),
            None => Err(E::custom("a field name read twice")),
        }
    }
}

/// Whether a string value is the expected kind.
struct IsKind<'k>(&'k str);

impl<'de> DeserializeSeed<'de> for IsKind<'_> {
    type Value = bool;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<bool, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for IsKind<'_> {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an event kind")
    }

    fn visit_str<E: de::Error>(self, kind: &str) -> Result<bool, E> {
        Ok(kind == self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Hash;

    fn tagged(payload: &str) -> Result<KernelEvent, serde_json::Error> {
        serde_json::from_str(payload)
    }

    #[test]
    fn reads_what_the_tagged_form_reads_kind_anywhere_in_the_object() {
        let id = Hash::ZERO.to_hex();
        for payload in [
            format!(r#"{{"expires_at":7,"id":"{id}","kind":"lease_activated"}}"#),
            format!(r#"{{"kind":"lease_activated","id":"{id}","expires_at":7}}"#),
            format!(r#"{{"id":"{id}","expires_at":7,"kind":"lease_activated","unknown":[1,{{"kind":"x"}}]}}"#),
        ] {
            let fast = KernelEvent::from_payload("lease_activated", &payload).map_err(|e| e.to_string());
            assert_eq!(fast, tagged(&payload).map_err(|e| e.to_string()), "{payload}");
        }
        let staled = KernelEvent::from_payload("progress_staled", r#"{"kind":"progress_staled"}"#);
        assert_eq!(staled.map_err(|e| e.to_string()), Ok(KernelEvent::ProgressStaled {}));
    }

    /// `CamelCase` as serde's `rename_all = "snake_case"` writes it.
    fn snake(name: &str) -> String {
        let mut out = String::new();
        for (i, c) in name.chars().enumerate() {
            if c.is_ascii_uppercase() && i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        }
        out
    }

    #[test]
    fn every_variant_reads_by_the_kind_the_tagged_form_names_it() {
        assert!(crate::event::VARIANTS.len() >= 36, "{}", crate::event::VARIANTS.len());
        for variant in crate::event::VARIANTS {
            let kind = snake(variant);
            // Only the kind: each read gets past the variant to its fields (or, for a variant
            // without fields, to the event), and both say the same of them.
            let payload = format!(r#"{{"kind":"{kind}"}}"#);
            let fast = KernelEvent::from_payload(&kind, &payload).map_err(|e| e.to_string());
            let tagged = tagged(&payload).map_err(|e| e.to_string());
            for read in [&fast, &tagged] {
                assert!(!read.as_ref().is_err_and(|e| e.contains("unknown variant")), "{variant}: {read:?}");
            }
            match (&fast, &tagged) {
                (Ok(a), Ok(b)) => assert_eq!((a, a.kind()), (b, kind.as_str())),
                (Err(a), Err(b)) => {
                    let field = |e: &str| e.split('`').nth(1).map(str::to_string);
                    assert_eq!(field(a), field(b), "{variant}: the same missing field");
                }
                _ => panic!("{variant}: {fast:?} against {tagged:?}"),
            }
        }
    }

    #[test]
    fn refuses_what_does_not_match_its_kind_column() {
        let id = Hash::ZERO.to_hex();
        let cases = [
            // The column names another kind with the same fields.
            (
                "lease_renewed",
                format!(r#"{{"expires_at":7,"id":"{id}","kind":"lease_activated"}}"#),
                "not lease_renewed",
            ),
            // No kind in the payload, or two.
            ("lease_activated", format!(r#"{{"expires_at":7,"id":"{id}"}}"#), "missing field `kind`"),
            (
                "lease_activated",
                format!(r#"{{"expires_at":7,"id":"{id}","kind":"lease_activated","kind":"lease_activated"}}"#),
                "duplicate field `kind`",
            ),
            ("no_such_kind", format!(r#"{{"id":"{id}","kind":"no_such_kind"}}"#), "unknown variant"),
            ("lease_activated", format!(r#"["lease_activated","{id}",7]"#), "invalid type"),
            ("lease_activated", format!(r#"{{"expires_at":7,"id":"{id}","kind":"lease_activated"}} x"#), "trailing"),
            (
                "lease_activated",
                format!(r#"{{"expires_at":"7","id":"{id}","kind":"lease_activated"}}"#),
                "invalid type",
            ),
            ("lease_activated", format!(r#"{{"kind":"lease_activated","id":"{id}"}}"#), "missing field `expires_at`"),
        ];
        for (kind, payload, why) in cases {
            match KernelEvent::from_payload(kind, &payload) {
                Ok(e) => panic!("{kind} {payload}: read as {e:?}"),
                Err(e) => assert!(e.to_string().contains(why), "{kind} {payload}: {e}"),
            }
        }
    }
}
