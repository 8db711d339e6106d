"""RTC-10, the generation standard: the pure IBI codec and the minting service.

- ibi: repository names and IBIp, both ways, and the temporal distributor (no Django).
- orcid: ORCID iDs of creators, their form and ISO 7064 check digit (no Django).
- lattes: Lattes CV ids (16 digits) of Brazilian researchers (no Django).
- minting: Algorithm 4 over the database-held state; `mint()` gives the next IBI.
"""
__all__ = ["ibi", "lattes", "minting", "orcid"]
