//! Lowercase hexadecimal, the one spelling of bytes as text: content and file
//! digests, API keys and their ids, and listing cursors.

/// `bytes` as lowercase hex, two digits a byte.
pub fn encode(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut text = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        text.push(char::from(DIGITS[usize::from(byte >> 4)]));
        text.push(char::from(DIGITS[usize::from(byte & 0x0f)]));
    }
    text
}

/// The bytes `text` spells in hex (either case), or `None` when it is not an even number of
/// hex digits.
pub fn decode(text: &str) -> Option<Vec<u8>> {
    let digit = |c: u8| {
        char::from(c)
            .to_digit(16)
            .and_then(|d| u8::try_from(d).ok())
    };
    let text = text.as_bytes();
    if !text.len().is_multiple_of(2) {
        return None;
    }
    text.chunks_exact(2)
        .map(|pair| Some(digit(pair[0])? << 4 | digit(pair[1])?))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_round_trip_as_lowercase_hex() {
        let bytes = [0x00, 0x0f, 0xa5, 0xff];
        assert_eq!(encode(&bytes), "000fa5ff");
        assert_eq!(decode("000fa5ff").as_deref(), Some(&bytes[..]));
        assert_eq!(decode("000FA5FF").as_deref(), Some(&bytes[..]));
        assert_eq!(encode(b""), "");
    }

    #[test]
    fn anything_but_pairs_of_hex_digits_is_refused() {
        for bad in ["a", "zz", "+f", "é1", "0g"] {
            assert_eq!(decode(bad), None, "{bad}");
        }
    }
}
