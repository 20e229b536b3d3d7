/*
 * The fields of a managed database's create or PUT body that both read
 * (api_db_fields.c): 0 means the problems, if any, are in `pb`; -1 that a
 * store failure (or a 403) was answered, alone.
 */
#ifndef API_DB_FIELDS_H
#define API_DB_FIELDS_H

#include "acct_api.h"
#include "acct_body.h"
#include "acct_db.h"

#define LABEL_MAX 32
#define CATALOG_ID_MAX 100
#define MB_PER_GB 1024

#define R_LABEL_TAKEN "A database with this label already exists"

/* 0 when rc is ACCT_STORE_OK, else -1 after answering it alone. */
int api_db_check_store(acct_req *req, acct_resp *resp, acct_store_rc rc);

/* The request's store for checking the body against the catalogue; NULL
 * after answering its failure alone. */
acct_store *api_db_body_store(acct_req *req, acct_resp *resp);

/* The body's label; ACCT_FIELD_SET with *out, or another outcome. */
acct_field_rc api_db_read_label(acct_req *req, acct_problems *pb,
                                const char **out);

/* Takes a PostgreSQL lock on (account, label) until the transaction ends. */
acct_store_rc api_db_lock_label(acct_req *req, const char *label);

/* The body's allow_list as canonical JSON text; NULL when absent or bad. */
const char *api_db_read_allow_list(acct_req *req, acct_problems *pb);

/* The body's private_network checked, as canonical JSON text into *text
 * (`stored` when the body gives the database's own back). */
int api_db_read_private_network(acct_req *req, acct_resp *resp,
                                acct_problems *pb, const char *stored,
                                const char **text);

/* A catalogue id field (string); NULL unless present and well-formed. */
const char *api_db_read_catalog_id(acct_req *req, acct_problems *pb,
                                   const char *field);

/* The region must exist, be up and offer Managed Databases. */
int api_db_check_region(acct_req *req, acct_resp *resp, acct_problems *pb,
                        const char *region);

/* The disk of node type `type` in MB into *disk; -1 there if unknown. */
int api_db_type_disk(acct_req *req, acct_resp *resp, acct_problems *pb,
                     const char *type, apr_int64_t *disk);

/* The engine id of a create body, of engine `e`: its full version into
 * *version. */
int api_db_check_engine(acct_req *req, acct_resp *resp, acct_problems *pb,
                        const acct_db_engine *e, const char *id,
                        const char **version);

/* The node type of a create body, sold in clusters of `nodes` (0: not
 * checked): its disk in MB into *disk, -1 when it is not acceptable. */
int api_db_check_type(acct_req *req, acct_resp *resp, acct_problems *pb,
                      const acct_db_engine *e, const char *type,
                      apr_int64_t nodes, apr_int64_t *disk);

/* The body's engine_config of engine `e` checked: a new database's settings
 * as JSON text, or NULL after the problems. */
const char *api_db_read_engine_config(acct_req *req, acct_problems *pb,
                                      const acct_db_engine *e);

#endif
