//! Canonical JSON written straight from a value's `Serialize`, without a `serde_json::Value`.
//!
//! Every state hash, every entry of a hashed map and every ledger payload is canonical JSON
//! ([`crate::canonical`]): keys sorted by their bytes, no whitespace, serde_json's escaping and
//! number formatting. It was made by building a `serde_json::Value` first and writing that out
//! with sorted keys — an allocation for every key, every string and every map node, then a sort
//! of keys the tree had already sorted, then a lookup per key. That was most of what a state hash
//! and a payload cost.
//!
//! This serializer writes the same bytes as it goes: sequences stream straight out; an object's
//! entries are written one after another into a scratch buffer, and when the object closes they
//! are copied out in key order. It keeps what the `Value` path did at its edges, so that every
//! hash ever recorded stays the same:
//!
//! - a key given twice keeps its last value (a `Value` map overwrites);
//! - an `f32` is written as the `f64` it widens to, a float that is not finite as `null`;
//! - a 128-bit integer outside 64 bits is an error, as it is for `Value`;
//! - bytes are an array of numbers; unit, unit structs and `None` are `null`;
//! - a map key is a string, or an integer, a `bool`, a `char` or a unit variant written as one,
//!   and a float key is left to serde_json's own key writer.
//!
//! A proptest and every kind of kernel value from real runs compare it byte for byte with the
//! `Value` path (`crate::canonical::write_value`), which stays as the reference.

use serde::ser::{self, Impossible, Serialize};
use serde_json::Error;
use std::borrow::Cow;
use std::io::Write as _;

/// Writes `value` as canonical JSON at the end of `out`.
pub fn write<T: Serialize + ?Sized>(value: &T, out: &mut Vec<u8>) -> Result<(), Error> {
    value.serialize(Writer { out })
}

struct Writer<'a> {
    out: &'a mut Vec<u8>,
}

fn string(out: &mut Vec<u8>, s: &str) -> Result<(), Error> {
    crate::json_string::write(out, s);
    Ok(())
}

fn number(out: &mut Vec<u8>, n: impl std::fmt::Display) -> Result<(), Error> {
    write!(out, "{n}").map_err(Error::io)
}

fn out_of_range() -> Error {
    ser::Error::custom("number out of range")
}

/// `{"variant":` — the opening of an externally tagged variant's one-entry object.
fn open_variant(out: &mut Vec<u8>, variant: &str) -> Result<(), Error> {
    out.push(b'{');
    string(out, variant)?;
    out.push(b':');
    Ok(())
}

impl<'a> ser::Serializer for Writer<'a> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Seq<'a>;
    type SerializeTuple = Seq<'a>;
    type SerializeTupleStruct = Seq<'a>;
    type SerializeTupleVariant = Seq<'a>;
    type SerializeMap = Object<'a>;
    type SerializeStruct = Object<'a>;
    type SerializeStructVariant = Object<'a>;

    fn serialize_bool(self, v: bool) -> Result<(), Error> {
        self.out.extend_from_slice(if v { b"true" } else { b"false" });
        Ok(())
    }
    fn serialize_i8(self, v: i8) -> Result<(), Error> {
        number(self.out, v)
    }
    fn serialize_i16(self, v: i16) -> Result<(), Error> {
        number(self.out, v)
    }
    fn serialize_i32(self, v: i32) -> Result<(), Error> {
        number(self.out, v)
    }
    fn serialize_i64(self, v: i64) -> Result<(), Error> {
        number(self.out, v)
    }
    fn serialize_i128(self, v: i128) -> Result<(), Error> {
        if u64::try_from(v).is_ok() || i64::try_from(v).is_ok() { number(self.out, v) } else { Err(out_of_range()) }
    }
    fn serialize_u8(self, v: u8) -> Result<(), Error> {
        number(self.out, v)
    }
    fn serialize_u16(self, v: u16) -> Result<(), Error> {
        number(self.out, v)
    }
    fn serialize_u32(self, v: u32) -> Result<(), Error> {
        number(self.out, v)
    }
    fn serialize_u64(self, v: u64) -> Result<(), Error> {
        number(self.out, v)
    }
    fn serialize_u128(self, v: u128) -> Result<(), Error> {
        if u64::try_from(v).is_ok() { number(self.out, v) } else { Err(out_of_range()) }
    }
    fn serialize_f32(self, v: f32) -> Result<(), Error> {
        self.serialize_f64(f64::from(v))
    }
    fn serialize_f64(self, v: f64) -> Result<(), Error> {
        // serde_json writes a float that is not finite as null, as `Value` holds it.
        serde_json::to_writer(self.out, &v)
    }
    fn serialize_char(self, v: char) -> Result<(), Error> {
        string(self.out, v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_str(self, v: &str) -> Result<(), Error> {
        string(self.out, v)
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), Error> {
        let mut seq = ser::Serializer::serialize_seq(self, Some(v.len()))?;
        for b in v {
            ser::SerializeSeq::serialize_element(&mut seq, b)?;
        }
        ser::SerializeSeq::end(seq)
    }
    fn serialize_none(self) -> Result<(), Error> {
        self.serialize_unit()
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Error> {
        self.out.extend_from_slice(b"null");
        Ok(())
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), Error> {
        self.serialize_unit()
    }
    fn serialize_unit_variant(self, _name: &'static str, _index: u32, variant: &'static str) -> Result<(), Error> {
        string(self.out, variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _name: &'static str, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        open_variant(self.out, variant)?;
        value.serialize(Writer { out: &mut *self.out })?;
        self.out.push(b'}');
        Ok(())
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Seq<'a>, Error> {
        self.out.push(b'[');
        Ok(Seq { out: self.out, first: true, variant: false })
    }
    fn serialize_tuple(self, len: usize) -> Result<Seq<'a>, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<Seq<'a>, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Seq<'a>, Error> {
        open_variant(self.out, variant)?;
        self.out.push(b'[');
        Ok(Seq { out: self.out, first: true, variant: true })
    }
    fn serialize_map(self, len: Option<usize>) -> Result<Object<'a>, Error> {
        Ok(Object::new(self.out, len.unwrap_or(0), false))
    }
    fn serialize_struct(self, _name: &'static str, len: usize) -> Result<Object<'a>, Error> {
        Ok(Object::new(self.out, len, false))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Object<'a>, Error> {
        open_variant(self.out, variant)?;
        Ok(Object::new(self.out, len, true))
    }
}

/// An array being written: elements go straight out.
pub struct Seq<'a> {
    out: &'a mut Vec<u8>,
    first: bool,
    /// Inside a variant's one-entry object, which closes after the array.
    variant: bool,
}

impl Seq<'_> {
    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        if !self.first {
            self.out.push(b',');
        }
        self.first = false;
        value.serialize(Writer { out: &mut *self.out })
    }
    fn close(self) -> Result<(), Error> {
        self.out.push(b']');
        if self.variant {
            self.out.push(b'}');
        }
        Ok(())
    }
}

impl ser::SerializeSeq for Seq<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.element(value)
    }
    fn end(self) -> Result<(), Error> {
        self.close()
    }
}

impl ser::SerializeTuple for Seq<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.element(value)
    }
    fn end(self) -> Result<(), Error> {
        self.close()
    }
}

impl ser::SerializeTupleStruct for Seq<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.element(value)
    }
    fn end(self) -> Result<(), Error> {
        self.close()
    }
}

impl ser::SerializeTupleVariant for Seq<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.element(value)
    }
    fn end(self) -> Result<(), Error> {
        self.close()
    }
}

/// An object being written: each value goes into `values` as it comes, under its key; on `end`
/// the entries are copied out sorted by key.
pub struct Object<'a> {
    out: &'a mut Vec<u8>,
    values: Vec<u8>,
    /// Each entry's key and where its value lies in `values`.
    entries: Vec<(Cow<'static, str>, usize, usize)>,
    /// A map's key given before its value.
    key: Option<Cow<'static, str>>,
    /// Inside a variant's one-entry object, which closes after this one.
    variant: bool,
}

impl<'a> Object<'a> {
    fn new(out: &'a mut Vec<u8>, len: usize, variant: bool) -> Object<'a> {
        Object { out, values: Vec::with_capacity(len * 16), entries: Vec::with_capacity(len), key: None, variant }
    }

    fn entry<T: Serialize + ?Sized>(&mut self, key: Cow<'static, str>, value: &T) -> Result<(), Error> {
        let start = self.values.len();
        value.serialize(Writer { out: &mut self.values })?;
        self.entries.push((key, start, self.values.len()));
        Ok(())
    }

    fn close(mut self) -> Result<(), Error> {
        // Stable: of a key given twice, the later entry stays later — and is the one kept.
        self.entries.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        self.out.push(b'{');
        let mut first = true;
        for (i, (key, start, end)) in self.entries.iter().enumerate() {
            if self.entries.get(i + 1).is_some_and(|next| next.0 == *key) {
                continue;
            }
            if !first {
                self.out.push(b',');
            }
            first = false;
            string(self.out, key)?;
            self.out.push(b':');
            self.out.extend_from_slice(self.values.get(*start..*end).unwrap_or_default());
        }
        self.out.push(b'}');
        if self.variant {
            self.out.push(b'}');
        }
        Ok(())
    }
}

impl ser::SerializeMap for Object<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        self.key = Some(Cow::Owned(map_key(key)?));
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        let key = self.key.take().ok_or_else(|| ser::Error::custom("a map value came without its key"))?;
        self.entry(key, value)
    }
    fn end(self) -> Result<(), Error> {
        self.close()
    }
}

impl ser::SerializeStruct for Object<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), Error> {
        self.entry(Cow::Borrowed(key), value)
    }
    fn end(self) -> Result<(), Error> {
        self.close()
    }
}

impl ser::SerializeStructVariant for Object<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), Error> {
        self.entry(Cow::Borrowed(key), value)
    }
    fn end(self) -> Result<(), Error> {
        self.close()
    }
}

/// A map key as the string serde_json's `Value` would hold it.
fn map_key<T: Serialize + ?Sized>(key: &T) -> Result<String, Error> {
    match key.serialize(KeyWriter) {
        Err(KeyError::Json(e)) => Err(e),
        Err(KeyError::Float) => json_key(key),
        Ok(k) => Ok(k),
    }
}

/// The key serde_json's own `Value` serializer makes of `key` (for floats: its float formatting).
fn json_key<T: Serialize + ?Sized>(key: &T) -> Result<String, Error> {
    struct One<'k, K: ?Sized>(&'k K);
    impl<K: Serialize + ?Sized> Serialize for One<'_, K> {
        fn serialize<S: ser::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            use ser::SerializeMap;
            let mut m = s.serialize_map(Some(1))?;
            m.serialize_entry(self.0, &())?;
            m.end()
        }
    }
    match serde_json::to_value(One(key))? {
        serde_json::Value::Object(m) => m.into_iter().next().map(|(k, _)| k).ok_or_else(key_must_be_a_string),
        _ => Err(key_must_be_a_string()),
    }
}

fn key_must_be_a_string() -> Error {
    ser::Error::custom("key must be a string")
}

#[derive(Debug)]
enum KeyError {
    Json(Error),
    /// A float key: serde_json's own formatting decides it.
    Float,
}

impl std::fmt::Display for KeyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KeyError::Json(e) => e.fmt(f),
            KeyError::Float => f.write_str("a float key"),
        }
    }
}

impl std::error::Error for KeyError {}

impl ser::Error for KeyError {
    fn custom<M: std::fmt::Display>(msg: M) -> Self {
        KeyError::Json(ser::Error::custom(msg))
    }
}

fn not_a_string<T>() -> Result<T, KeyError> {
    Err(KeyError::Json(key_must_be_a_string()))
}

/// What serde_json's map-key serializer accepts, written as it writes it.
struct KeyWriter;

impl ser::Serializer for KeyWriter {
    type Ok = String;
    type Error = KeyError;
    type SerializeSeq = Impossible<String, KeyError>;
    type SerializeTuple = Impossible<String, KeyError>;
    type SerializeTupleStruct = Impossible<String, KeyError>;
    type SerializeTupleVariant = Impossible<String, KeyError>;
    type SerializeMap = Impossible<String, KeyError>;
    type SerializeStruct = Impossible<String, KeyError>;
    type SerializeStructVariant = Impossible<String, KeyError>;

    fn serialize_bool(self, v: bool) -> Result<String, KeyError> {
        Ok(if v { "true" } else { "false" }.to_owned())
    }
    fn serialize_i8(self, v: i8) -> Result<String, KeyError> {
        Ok(v.to_string())
    }
    fn serialize_i16(self, v: i16) -> Result<String, KeyError> {
        Ok(v.to_string())
    }
    fn serialize_i32(self, v: i32) -> Result<String, KeyError> {
        Ok(v.to_string())
    }
    fn serialize_i64(self, v: i64) -> Result<String, KeyError> {
        Ok(v.to_string())
    }
    fn serialize_i128(self, v: i128) -> Result<String, KeyError> {
        Ok(v.to_string())
    }
    fn serialize_u8(self, v: u8) -> Result<String, KeyError> {
        Ok(v.to_string())
    }
    fn serialize_u16(self, v: u16) -> Result<String, KeyError> {
        Ok(v.to_string())
    }
    fn serialize_u32(self, v: u32) -> Result<String, KeyError> {
        Ok(v.to_string())
    }
    fn serialize_u64(self, v: u64) -> Result<String, KeyError> {
        Ok(v.to_string())
    }
    fn serialize_u128(self, v: u128) -> Result<String, KeyError> {
        Ok(v.to_string())
    }
    fn serialize_f32(self, _v: f32) -> Result<String, KeyError> {
        Err(KeyError::Float)
    }
    fn serialize_f64(self, _v: f64) -> Result<String, KeyError> {
        Err(KeyError::Float)
    }
    fn serialize_char(self, v: char) -> Result<String, KeyError> {
        Ok(v.to_string())
    }
    fn serialize_str(self, v: &str) -> Result<String, KeyError> {
        Ok(v.to_owned())
    }
    fn serialize_bytes(self, _v: &[u8]) -> Result<String, KeyError> {
        not_a_string()
    }
    fn serialize_none(self) -> Result<String, KeyError> {
        not_a_string()
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _value: &T) -> Result<String, KeyError> {
        not_a_string()
    }
    fn serialize_unit(self) -> Result<String, KeyError> {
        not_a_string()
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<String, KeyError> {
        not_a_string()
    }
    fn serialize_unit_variant(self, _name: &'static str, _i: u32, variant: &'static str) -> Result<String, KeyError> {
        Ok(variant.to_owned())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _name: &'static str, v: &T) -> Result<String, KeyError> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _i: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result<String, KeyError> {
        not_a_string()
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq, KeyError> {
        not_a_string()
    }
    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple, KeyError> {
        not_a_string()
    }
    fn serialize_tuple_struct(self, _name: &'static str, _len: usize) -> Result<Self::SerializeTupleStruct, KeyError> {
        not_a_string()
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _i: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant, KeyError> {
        not_a_string()
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap, KeyError> {
        not_a_string()
    }
    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Self::SerializeStruct, KeyError> {
        not_a_string()
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _i: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant, KeyError> {
        not_a_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde::Serialize;
    use serde_json::{Value, json};
    use std::collections::BTreeMap;

    /// The reference: through a `Value`, as canonical bytes were first made.
    fn by_value<T: Serialize + ?Sized>(v: &T) -> Result<Vec<u8>, String> {
        let v = serde_json::to_value(v).map_err(|e| e.to_string())?;
        let mut out = vec![];
        crate::canonical::write_value(&v, &mut out).map_err(|e| e.to_string())?;
        Ok(out)
    }

    fn direct<T: Serialize + ?Sized>(v: &T) -> Result<Vec<u8>, String> {
        let mut out = vec![];
        write(v, &mut out).map_err(|e| e.to_string())?;
        Ok(out)
    }

    fn same<T: Serialize + ?Sized + std::fmt::Debug>(v: &T) {
        let (a, b) = (by_value(v), direct(v));
        assert_eq!(a.is_ok(), b.is_ok(), "{v:?}: {a:?} vs {b:?}");
        if let (Ok(a), Ok(b)) = (a, b) {
            assert_eq!(String::from_utf8_lossy(&b), String::from_utf8_lossy(&a), "{v:?}");
        }
    }

    #[derive(Serialize, Debug)]
    #[serde(rename_all = "snake_case")]
    enum Shapes {
        Unit,
        Newtype(u32),
        Tuple(i8, String),
        Struct { zeta: Option<bool>, alpha: Vec<u8>, mid: () },
    }

    #[derive(Serialize, Debug)]
    #[serde(tag = "kind", rename_all = "snake_case")]
    enum Tagged {
        First {
            b: u64,
            a: String,
        },
        Second {
            #[serde(flatten)]
            inner: BTreeMap<String, i64>,
            a: bool,
        },
    }

    #[derive(Serialize, Debug)]
    struct Newtype(String);

    #[derive(Serialize, Debug)]
    struct UnitStruct;

    #[derive(Serialize, Debug, PartialEq, Eq, PartialOrd, Ord)]
    enum Key {
        Low,
        High,
    }

    #[derive(Serialize, Debug)]
    struct Bytes(#[serde(with = "serde_bytes_like")] Vec<u8>);

    mod serde_bytes_like {
        pub fn serialize<S: serde::Serializer>(v: &[u8], s: S) -> Result<S::Ok, S::Error> {
            s.serialize_bytes(v)
        }
    }

    #[test]
    fn every_shape_serde_has_is_written_as_the_value_path_writes_it() {
        same(&Shapes::Unit);
        same(&Shapes::Newtype(7));
        same(&Shapes::Tuple(-3, "a\"b\\c\n\u{1}é\u{2028}".into()));
        same(&Shapes::Struct { zeta: None, alpha: vec![1, 2], mid: () });
        same(&Tagged::First { b: 9, a: "x".into() });
        same(&Tagged::Second { inner: BTreeMap::from([("z".into(), -1), ("a".into(), 2)]), a: true });
        // `a` given twice through flatten: the later value is the one a `Value` keeps.
        same(&Tagged::Second { inner: BTreeMap::from([("a".into(), 5)]), a: false });
        same(&Newtype("n".into()));
        same(&UnitStruct);
        same(&Bytes(vec![0, 255, 7]));
        same(&BTreeMap::from([(Key::High, 1), (Key::Low, 2)]));
        same(&BTreeMap::from([(10u64, "ten"), (9, "nine"), (100, "hundred")]));
        same(&BTreeMap::from([(-1i32, 0), (3, 1)]));
        same(&BTreeMap::from([('b', 0), ('a', 1)]));
        same(&BTreeMap::from([(true, 0), (false, 1)]));
        same(&vec![(1.5f64, "x")]);
        same(&[f64::NAN, f64::INFINITY, -0.0, 1e300, 0.1]);
        same(&[0.1f32, 3.0, f32::NAN]);
        same(&(u128::from(u64::MAX), i128::from(i64::MIN)));
        same(&u128::MAX);
        same(&i128::MIN);
        same(&json!({"b": [1, {"d": null, "c": 2.5}], "a": "é", "": {}}));
        same(&Some(Some(())));
        same(&((), ('x', [(); 0]), "s"));
        // Keys that are not strings in serde_json's sense.
        same(&BTreeMap::from([(vec![1], 1)]));
        same(&BTreeMap::from([(Some(1), 1)]));
        // Float keys are serde_json's to format.
        same(&BTreeMap::from([(OrdF64(1.25), 1), (OrdF64(-3e-7), 2)]));
    }

    #[derive(Serialize, Debug, PartialEq)]
    struct OrdF64(f64);
    impl Eq for OrdF64 {}
    impl PartialOrd for OrdF64 {
        fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
            Some(self.cmp(other))
        }
    }
    impl Ord for OrdF64 {
        fn cmp(&self, other: &Self) -> std::cmp::Ordering {
            self.0.total_cmp(&other.0)
        }
    }

    fn arb_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            "(.|\\PC|[\\x00-\\x1f\"\\\\\u{2028}\u{7f}]){0,12}".prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 64, 6, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                proptest::collection::btree_map("[a-cé\"\\\\]{0,3}", inner, 0..6)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #[test]
        fn any_json_value_is_written_as_the_value_path_writes_it(v in arb_value()) {
            prop_assert_eq!(direct(&v), by_value(&v));
        }

        #[test]
        fn maps_and_tuples_of_any_keys_are_written_alike(
            m in proptest::collection::btree_map(any::<u64>(), "[a-z]{0,4}", 0..8),
            s in proptest::collection::btree_map(".{0,6}", any::<i32>(), 0..8),
        ) {
            prop_assert_eq!(direct(&m), by_value(&m));
            prop_assert_eq!(direct(&s), by_value(&s));
            prop_assert_eq!(direct(&(&m, &s)), by_value(&(&m, &s)));
        }
    }
}
