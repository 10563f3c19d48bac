/**
 * Certificates for the Redis store's TLS tests, made once for tests alone (test-only keys, never
 * for any real server): two certificate authorities, each with a certificate for 127.0.0.1 and its
 * key, valid from 2000 to 2100. A test serves `trusted` to a client that trusts `trusted.ca`, then
 * `untrusted`, which that client refuses ("self-signed certificate in certificate chain": redis-server
 * sends its CA with the certificate).
 *
 * Made with OpenSSL: an EC P-256 key each, `openssl ca -selfsign` for each authority and
 * `openssl ca` for each server certificate (subjectAltName IP:127.0.0.1, serverAuth).
 */

/** A certificate authority, and a certificate it signed for 127.0.0.1 with its key (all PEM). */
export interface TestCertificates {
  readonly ca: string
  readonly cert: string
  readonly key: string
}

/** The trusted authority's. */
export const trusted: TestCertificates = {
  ca: `-----BEGIN CERTIFICATE-----
MIIBmDCCAT+gAwIBAgIBATAKBggqhkjOPQQDAjAzMTEwLwYDVQQDDChlZmZlY3Qt
aHR0cC1yZXNpbGllbmNlIHRlc3QgQ0EgKHRydXN0ZWQpMCAXDTAwMDEwMTAwMDAw
MFoYDzIxMDAwMTAxMDAwMDAwWjAzMTEwLwYDVQQDDChlZmZlY3QtaHR0cC1yZXNp
bGllbmNlIHRlc3QgQ0EgKHRydXN0ZWQpMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcD
QgAEfsFmpxq2qA8zPMCuIg9blChW8f5B+xcUVVsmlvWKsD02y+JioVXkOt95MNgg
L45nOrgRh+XpgBG7hafTNNjui6NCMEAwDwYDVR0TAQH/BAUwAwEB/zAOBgNVHQ8B
Af8EBAMCAQYwHQYDVR0OBBYEFNuQNiIDKH8zCIVd9IHv6V4+iTpgMAoGCCqGSM49
BAMCA0cAMEQCIC0R6uVxJ2hMVQESW4VE2R+dTj/rvh5kZyIZvNnucLDqAiAFlfzW
ABfVizjDSi2Nu2A6VaWc6iKh85BL1ZByYvTsvw==
-----END CERTIFICATE-----
`,
  cert: `-----BEGIN CERTIFICATE-----
MIIBvjCCAWOgAwIBAgIBAjAKBggqhkjOPQQDAjAzMTEwLwYDVQQDDChlZmZlY3Qt
aHR0cC1yZXNpbGllbmNlIHRlc3QgQ0EgKHRydXN0ZWQpMCAXDTAwMDEwMTAwMDAw
MFoYDzIxMDAwMTAxMDAwMDAwWjAUMRIwEAYDVQQDDAkxMjcuMC4wLjEwWTATBgcq
hkjOPQIBBggqhkjOPQMBBwNCAATbmebZg8BizJ+UdDXg2iiBLfaYuHemtRfD0Ib4
h9d1Kte7ZJESfZy3naVywNsYcr+8g7hMsuKydOL/Z/5g2ISvo4GEMIGBMAkGA1Ud
EwQCMAAwDwYDVR0RBAgwBocEfwAAATAOBgNVHQ8BAf8EBAMCB4AwEwYDVR0lBAww
CgYIKwYBBQUHAwEwHwYDVR0jBBgwFoAU25A2IgMofzMIhV30ge/pXj6JOmAwHQYD
VR0OBBYEFCJgU6AtHl6J9MwKS1p/+6+2+EVGMAoGCCqGSM49BAMCA0kAMEYCIQDV
8IqHFtu/8fw9ynBxknoRlK5hgMMg0q3+ZL5YKkh5fgIhAIuW19FyPEvroaQDUpXQ
yScnLuForII85jIgqI1qT9MW
-----END CERTIFICATE-----
`,
  key: `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgmt5m4EHjHvNpXEDf
YrGMeH0gw6tjqoWDAvWT/M3xKtqhRANCAATbmebZg8BizJ+UdDXg2iiBLfaYuHem
tRfD0Ib4h9d1Kte7ZJESfZy3naVywNsYcr+8g7hMsuKydOL/Z/5g2ISv
-----END PRIVATE KEY-----
`
}

/** The untrusted authority's. */
export const untrusted: TestCertificates = {
  ca: `-----BEGIN CERTIFICATE-----
MIIBnTCCAUOgAwIBAgIBATAKBggqhkjOPQQDAjA1MTMwMQYDVQQDDCplZmZlY3Qt
aHR0cC1yZXNpbGllbmNlIHRlc3QgQ0EgKHVudHJ1c3RlZCkwIBcNMDAwMTAxMDAw
MDAwWhgPMjEwMDAxMDEwMDAwMDBaMDUxMzAxBgNVBAMMKmVmZmVjdC1odHRwLXJl
c2lsaWVuY2UgdGVzdCBDQSAodW50cnVzdGVkKTBZMBMGByqGSM49AgEGCCqGSM49
AwEHA0IABDJpI/qY2NE5cmdhCJx3JYDpqe9FPErJREIGD3LUZyds6QBfFf6g0I+k
xapWNdI6+bmP28khnQyX7vfhqp5zPAyjQjBAMA8GA1UdEwEB/wQFMAMBAf8wDgYD
VR0PAQH/BAQDAgEGMB0GA1UdDgQWBBTI8wQR5FykgVru0s6HVND2ST+JoTAKBggq
hkjOPQQDAgNIADBFAiEA70jCb5VncoGu5E1pCcQp7d2FUXk+8BKYhlOQr8+WXuEC
IDAu8Wsz86IDSyFEOtCGbyprrTW7//D5Ra7v5YVHh3oN
-----END CERTIFICATE-----
`,
  cert: `-----BEGIN CERTIFICATE-----
MIIBvjCCAWWgAwIBAgIBAjAKBggqhkjOPQQDAjA1MTMwMQYDVQQDDCplZmZlY3Qt
aHR0cC1yZXNpbGllbmNlIHRlc3QgQ0EgKHVudHJ1c3RlZCkwIBcNMDAwMTAxMDAw
MDAwWhgPMjEwMDAxMDEwMDAwMDBaMBQxEjAQBgNVBAMMCTEyNy4wLjAuMTBZMBMG
ByqGSM49AgEGCCqGSM49AwEHA0IABCzaEwglM5PMml+VRl/wwZtIk1T2PqJz9jxj
MEbEcaZPTswssBnKl1xSHyWVPC6CiCHEnzj1LsttKoR5ua6rgPejgYQwgYEwCQYD
VR0TBAIwADAPBgNVHREECDAGhwR/AAABMA4GA1UdDwEB/wQEAwIHgDATBgNVHSUE
DDAKBggrBgEFBQcDATAfBgNVHSMEGDAWgBTI8wQR5FykgVru0s6HVND2ST+JoTAd
BgNVHQ4EFgQUVR3bHQ7eNZ9wXB4PTWB1yv6ZbyEwCgYIKoZIzj0EAwIDRwAwRAIg
D60NxSZPs0ExZZu5VqLLo9Sfgivb09R5Saar40gebNwCIBFABv8gGkgedh+MRvpq
vd7eyxeLGNLD0M3jnPdgiGWC
-----END CERTIFICATE-----
`,
  key: `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg9IPknh9XO+V5+Qnp
GR3F9xpGVCGEhVjH7V0ELV+prZOhRANCAAQs2hMIJTOTzJpflUZf8MGbSJNU9j6i
c/Y8YzBGxHGmT07MLLAZypdcUh8llTwugoghxJ849S7LbSqEebmuq4D3
-----END PRIVATE KEY-----
`
}
