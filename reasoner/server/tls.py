"""Check a TLS certificate and its key before serving, so that a bad pair is one line that
names the file and the problem, before any game is loaded (gRPC itself only fails when it
binds the port, with "Failed to bind to address").

Python's :mod:`ssl` module (OpenSSL, as gRPC uses) reads the files: the certificate must
parse as a PEM certificate, the key as a PEM private key without a passphrase, and the key
must be the certificate's. The first certificate's validity dates are read from its DER
encoding (the few fields of RFC 5280 that lead to them): an expired certificate, or one
not valid yet, is refused with its dates.
"""

from __future__ import annotations

import re
import ssl
from datetime import UTC, datetime
from pathlib import Path

__all__ = ["TlsFileError", "check_tls", "validity"]

_BEGIN_CERTIFICATE = b"-----BEGIN CERTIFICATE-----"
_TIME_FORMAT = "%Y-%m-%d %H:%M:%S UTC"


class TlsFileError(ValueError):
    """A certificate or key that cannot serve; the message names the file."""


def check_tls(cert: Path, key: Path, now: datetime | None = None) -> tuple[bytes, bytes]:
    """Read and check a PEM certificate chain and its private key; returns their bytes
    (for :func:`reasoner.server.app.create_server`'s ``tls``) or raises
    :class:`TlsFileError` with one line that names the file at fault."""
    chain = _read(cert, "certificate")
    secret = _read(key, "private key")
    if _BEGIN_CERTIFICATE not in chain:
        raise TlsFileError(f"{cert}: no PEM certificate in it "
                           f"(no {_BEGIN_CERTIFICATE.decode()} line)")
    if b"PRIVATE KEY-----" not in secret:
        raise TlsFileError(f"{key}: no PEM private key in it (no -----BEGIN ... PRIVATE "
                           "KEY----- line)")
    if b"ENCRYPTED" in secret:
        raise TlsFileError(f"{key}: the private key is encrypted; the server needs it "
                           "without a passphrase")
    try:
        ssl.create_default_context().load_verify_locations(
            cadata=chain.decode("ascii", errors="replace"))
    except (ssl.SSLError, ValueError) as error:
        raise TlsFileError(f"{cert}: not a valid PEM certificate ({_reason(error)})") from None
    try:
        ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER).load_cert_chain(cert, key, password=b"")
    except ssl.SSLError as error:
        if "KEY_VALUES_MISMATCH" in str(error) or error.reason == "KEY_VALUES_MISMATCH":
            raise TlsFileError(f"{key}: the private key does not match the certificate in "
                               f"{cert}") from None
        raise TlsFileError(f"{key}: not a valid PEM private key ({_reason(error)})") from None
    try:
        not_before, not_after = validity(_first_der(chain))
    except ValueError as error:
        raise TlsFileError(f"{cert}: cannot read the certificate's dates ({error})") from None
    moment = now if now is not None else datetime.now(UTC)
    dates = (f"valid from {not_before.strftime(_TIME_FORMAT)} "
             f"to {not_after.strftime(_TIME_FORMAT)}")
    if moment > not_after:
        raise TlsFileError(f"{cert}: the certificate expired on "
                           f"{not_after.strftime(_TIME_FORMAT)} ({dates})")
    if moment < not_before:
        raise TlsFileError(f"{cert}: the certificate is not valid until "
                           f"{not_before.strftime(_TIME_FORMAT)} ({dates})")
    return chain, secret


def _read(path: Path, what: str) -> bytes:
    try:
        data = path.read_bytes()
    except OSError as error:
        raise TlsFileError(f"{path}: cannot read the {what}: {error.strerror}") from None
    if not data.strip():
        raise TlsFileError(f"{path}: the {what} file is empty")
    return data


def _reason(error: Exception) -> str:
    """OpenSSL's words for an error, without the place in Python's C source."""
    text = re.sub(r"\s*\(_ssl\.c:\d+\)", "", str(error)).strip()
    return text.splitlines()[0] if text else "unreadable"


def _first_der(chain: bytes) -> bytes:
    text = chain.decode("ascii", errors="replace")
    start = text.index(_BEGIN_CERTIFICATE.decode())
    end = text.find("-----END CERTIFICATE-----", start)
    if end < 0:
        raise ValueError("no END CERTIFICATE line")
    return ssl.PEM_cert_to_DER_cert(text[start:end + len("-----END CERTIFICATE-----")])


def validity(der: bytes) -> tuple[datetime, datetime]:
    """A DER certificate's notBefore and notAfter (RFC 5280: Certificate is a SEQUENCE whose
    first element, tbsCertificate, holds [0] version (optional), serialNumber, signature,
    issuer, then validity: a SEQUENCE of two times)."""
    certificate, _ = _element(der, 0, 0x30)
    tbs, _ = _element(der, certificate, 0x30)
    at = tbs
    if der[at:at + 1] == b"\xa0":  # the explicit version
        _, at = _element(der, at, 0xA0)
    for tag in (0x02, 0x30, 0x30):  # serialNumber, signature, issuer
        _, at = _element(der, at, tag)
    inside, _ = _element(der, at, 0x30)
    not_before, after_first = _time(der, inside)
    not_after, _ = _time(der, after_first)
    return not_before, not_after


def _element(der: bytes, at: int, tag: int) -> tuple[int, int]:
    """The content's start and the element's end, for the element at ``at`` of tag ``tag``."""
    if at + 2 > len(der) or der[at] != tag:
        raise ValueError(f"malformed DER at byte {at}")
    length = der[at + 1]
    start = at + 2
    if length & 0x80:
        count = length & 0x7F
        if count == 0 or count > 4 or start + count > len(der):
            raise ValueError(f"malformed DER length at byte {at}")
        length = int.from_bytes(der[start:start + count], "big")
        start += count
    if start + length > len(der):
        raise ValueError(f"truncated DER at byte {at}")
    return start, start + length


def _time(der: bytes, at: int) -> tuple[datetime, int]:
    tag = der[at] if at < len(der) else -1
    if tag not in (0x17, 0x18):  # UTCTime, GeneralizedTime
        raise ValueError(f"no time at byte {at}")
    start, end = _element(der, at, tag)
    text = der[start:end].decode("ascii", errors="replace")
    try:
        if tag == 0x17:
            moment = datetime.strptime(text, "%y%m%d%H%M%SZ")
            if moment.year >= 2050:  # RFC 5280: two-digit years 50-99 are 1950-1999
                moment = moment.replace(year=moment.year - 100)
        else:
            moment = datetime.strptime(text, "%Y%m%d%H%M%SZ")
    except ValueError:
        raise ValueError(f"unreadable time {text!r}") from None
    return moment.replace(tzinfo=UTC), end
