-- Consent evidence (issue 13). A new file: shipped migrations are never edited.
--
-- CASL asks the sender to prove consent. Until now consent_text held whatever the browser sent; from now on it is the
-- launch's own consent note as the server knows it (page.config.json form.consent), with:
--   consent_sha256    SHA-256 of consent_text (UTF-8, hex): which version of the note was shown. Null on leads
--                     stored before this migration, whose consent_text is the browser's report.
--   consent_reported  the text the browser said it showed, only when it differs from consent_text; null otherwise.
-- The function (lead_writer) may insert these columns and never update them.

alter table public.leads add column if not exists consent_sha256 text;
alter table public.leads add column if not exists consent_reported text;

comment on column public.leads.consent_text is 'The consent note the server showed (the launch''s form.consent), never the browser''s copy; on leads stored before 20251205000000, what the browser reported.';
comment on column public.leads.consent_sha256 is 'SHA-256 of consent_text (UTF-8, hex): the version of the note shown. Null on leads stored before it was kept.';
comment on column public.leads.consent_reported is 'The consent text the browser reported, only when it differs from consent_text.';
comment on column public.leads.page_url is 'scheme://host/path of the site''s own page the lead came from (no query or fragment); null when the browser sent another address.';
