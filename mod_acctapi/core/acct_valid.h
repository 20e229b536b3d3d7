/*
 * Syntax checks of names and addresses that several layers share: DNS host
 * names (domains, records, nameserver directives), e-mail addresses
 * (profiles, users) and SOA mailboxes.  IP addresses and ranges are
 * acct_addr.h's.  Pure functions of their text: no storage, no pool.
 */
#ifndef ACCT_VALID_H
#define ACCT_VALID_H

#define ACCT_DNS_NAME_MAX 253
#define ACCT_DNS_LABEL_MAX 63

/* Flags of acct_valid_dns_name. */
#define ACCT_DNS_WILDCARD   0x01 /* the left-most label may be "*" */
#define ACCT_DNS_UNDERSCORE 0x02 /* labels may hold '_' (_dmarc, _sip._tcp) */
#define ACCT_DNS_RELATIVE   0x04 /* one label or more, no dot needed */

/*
 * RFC 1035 host name: dot-separated labels of letters, digits and hyphens,
 * not starting or ending with a hyphen, each 1..63 octets, 253 in all; no
 * trailing dot (callers strip an allowed one first).  Without
 * ACCT_DNS_RELATIVE the name needs two labels at least.
 */
int acct_valid_dns_name(const char *name, unsigned flags);

/*
 * An SOA mailbox (soa_email): what the public API's e-mail format accepts
 * (the WHATWG form its console validates with: any of the local part's
 * characters in any order, dots included, a host of one label or more)
 * and an SOA RNAME can carry: the local part becomes one label of at most
 * 63 octets, and the whole a name of at most 253 characters.
 */
int acct_valid_mailbox(const char *email);

/*
 * An e-mail address as mail systems accept it: one '@', a local part of
 * 1..64 printable ASCII characters without spaces, a domain of dot-separated
 * labels (letters, digits, hyphens) with at least one dot; 254 at most.
 */
int acct_valid_email(const char *email);

#endif
