/* Zone transfers: the judging of answers. */
#include "unit.h"

#include <apr_network_io.h>
#include <apr_poll.h>
#include <apr_strings.h>
#include <apr_thread_proc.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "unit_db.h"
#include "acct_auth.h"
#include "acct_axfr.h"
#include "acct_ident.h"
#include "acct_json.h"
#include "api_handlers.h"

#include "unit_axfr.h"

/* ------------------------------------------------------------------------
 * Judging answers
 * ------------------------------------------------------------------------ */

static ldns_pkt *answer(uint16_t id, int qr, int aa, ldns_pkt_rcode rcode,
                        int records)
{
    ldns_pkt *p = ldns_pkt_new();

    ldns_pkt_set_id(p, id);
    ldns_pkt_set_qr(p, qr);
    ldns_pkt_set_aa(p, aa);
    ldns_pkt_set_rcode(p, (uint8_t)rcode);
    if (records) {
        ldns_pkt_push_rr(p, LDNS_SECTION_ANSWER,
                         rr_of("example.com. 3600 IN SOA ns.example.com. "
                               "h.example.com. 1 2 3 4 5"));
    }
    return p;
}

static void test_judge(void **state)
{
    static const struct {
        uint16_t id;
        int qr, aa;
        ldns_pkt_rcode rcode;
        int records, first;
        acct_axfr_rc want;
        const char *detail;
    } cases[] = {
        {7, 1, 1, LDNS_RCODE_NOERROR, 1, 1, ACCT_AXFR_OK, NULL},
        {7, 1, 0, LDNS_RCODE_NOERROR, 1, 0, ACCT_AXFR_OK, NULL},
        {7, 1, 0, LDNS_RCODE_NOERROR, 1, 1, ACCT_AXFR_NOT_AUTH, NULL},
        {7, 1, 1, LDNS_RCODE_NOERROR, 0, 1, ACCT_AXFR_NOT_AUTH, NULL},
        {7, 1, 0, LDNS_RCODE_REFUSED, 0, 1, ACCT_AXFR_REFUSED, NULL},
        {7, 1, 1, LDNS_RCODE_NXDOMAIN, 0, 1, ACCT_AXFR_NXDOMAIN, NULL},
        {7, 1, 0, LDNS_RCODE_NOTAUTH, 0, 1, ACCT_AXFR_NOT_AUTH, NULL},
        {7, 1, 0, LDNS_RCODE_SERVFAIL, 0, 1, ACCT_AXFR_FAILED, "SERVFAIL"},
        {7, 1, 0, LDNS_RCODE_NOTIMPL, 0, 1, ACCT_AXFR_FAILED, "NOTIMPL"},
        {7, 1, 1, LDNS_RCODE_REFUSED, 0, 0, ACCT_AXFR_REFUSED, NULL},
        {8, 1, 1, LDNS_RCODE_NOERROR, 1, 1, ACCT_AXFR_BROKEN,
         "a message that does not answer the query"},
        {7, 0, 1, LDNS_RCODE_NOERROR, 1, 1, ACCT_AXFR_BROKEN,
         "a message that does not answer the query"},
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        ldns_pkt *p = answer(cases[i].id, cases[i].qr, cases[i].aa,
                             cases[i].rcode, cases[i].records);
        const char *detail = NULL;

        UNIT_CHECK_CASE(i, acct_axfr_judge(p, 7, cases[i].first, &detail)
                           == cases[i].want);
        UNIT_CHECK_CASE(i, cases[i].detail ? detail
                           && strcmp(detail, cases[i].detail) == 0 : 1);
        ldns_pkt_free(p);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_TEST(test_judge),
    };

    return UNIT_RUN(tests);
}
