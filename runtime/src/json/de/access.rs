//! The reader's `MapAccess` and `SeqAccess` (an object's members, an
//! array's items, a member's name, serde_json's raw-value map), for the
//! visitors of [`super::from_str`].

use super::*;

/// An object's members for a visitor.
pub(super) struct Members<'a, 'de> {
    pub(super) reader: &'a mut Reader<'de>,
    pub(super) first: bool,
}

impl<'de> de::MapAccess<'de> for Members<'_, 'de> {
    type Error = Error;

    #[inline]
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Error> {
        let r = &mut *self.reader;
        match r.peek()? {
            b'}' => return Ok(None),
            b',' if !self.first => {
                r.at += 1;
                if r.peek()? != b'"' {
                    return Err(decline());
                }
            }
            b'"' if self.first => {}
            _ => return Err(decline()),
        }
        self.first = false;
        seed.deserialize(Key { reader: r }).map(Some)
    }

    #[inline]
    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, Error> {
        self.reader.eat(b':')?;
        seed.deserialize(&mut *self.reader)
    }
}

/// An array's items for a visitor.
pub(super) struct Items<'a, 'de> {
    pub(super) reader: &'a mut Reader<'de>,
    pub(super) first: bool,
}

impl<'de> de::SeqAccess<'de> for Items<'_, 'de> {
    type Error = Error;

    #[inline]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, Error> {
        let r = &mut *self.reader;
        match r.peek()? {
            b']' => return Ok(None),
            b',' if !self.first => r.at += 1,
            _ if self.first => {}
            _ => return Err(decline()),
        }
        self.first = false;
        seed.deserialize(&mut *r).map(Some)
    }
}

/// A member's name, handed to the visitor as a string whatever it asks for.
/// serde_json also reads numbers, booleans and enum variants out of keys; a
/// visitor that wants one of those refuses the string, and the text goes to
/// serde_json.
struct Key<'a, 'de> {
    reader: &'a mut Reader<'de>,
}

impl<'de> de::Deserializer<'de> for Key<'_, 'de> {
    type Error = Error;

    #[inline]
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.reader.string()?.visit(visitor)
    }

    #[inline]
    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_any(visitor)
    }

    #[inline]
    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_any(visitor)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum ignored_any
    }
}

/// serde_json's raw-value map: the token as the key, the text as the value.
pub(super) struct Raw<'de> {
    pub(super) text: Option<&'de str>,
}

impl<'de> de::MapAccess<'de> for Raw<'de> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Error> {
        if self.text.is_none() {
            return Ok(None);
        }
        seed.deserialize(BorrowedStrDeserializer::new(RAW_VALUE)).map(Some)
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, Error> {
        let text = self.text.take().ok_or_else(decline)?;
        seed.deserialize(BorrowedStrDeserializer::new(text))
    }
}
