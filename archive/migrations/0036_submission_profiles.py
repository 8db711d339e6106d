"""Submission profiles per collection (issue 34, point 3): the profiles, their fields,
controlled vocabularies, and a collection's profile; then the built-in ones, "padrão" (the
simple Dublin Core fields every deposit had) and "tese" (MTD-BR's thesis or dissertation), with
the degree levels and CNPq's knowledge areas (read from archive/profiles/data/cnpq-areas.tsv,
as 0028 reads the registry's files). These tables are this migration's own (history: never
today's code, archive/profiles/builtin.py, which ensure_builtin reads after a flush)."""
from pathlib import Path

import django.db.models.deletion
from django.db import migrations, models

import archive.models

CNPQ = Path(__file__).resolve().parent.parent / "profiles" / "data" / "cnpq-areas.tsv"

DEGREE_LEVELS = (('mestrado', 'Mestrado', "Master's"),
 ('mestrado-profissional', 'Mestrado profissional', "Professional master's"),
 ('doutorado', 'Doutorado', 'Doctorate'),
 ('doutorado-profissional', 'Doutorado profissional', 'Professional doctorate'))

PROFILES = {'padrao': ('Padrão',
            'Default',
            'Os campos de Dublin Core simples de todo depósito.',
            (('dc.creator',
              '',
              False,
              True,
              'authority',
              '',
              'orcid',
              'Um por linha; o ORCID iD após uma barra: Banon, Gerald | 0000-0002-1825-0097',
              'One per line; an ORCID iD after a bar: Banon, Gerald | 0000-0002-1825-0097'),
             ('dc.date',
              '',
              False,
              True,
              'date',
              '',
              '',
              'ISO 8601, ex. 2013-09-04',
              'ISO 8601, e.g. 2013-09-04'),
             ('dc.type', '', False, True, 'text', '', '', '', ''),
             ('dc.rights', '', False, True, 'text', '', '', '', ''),
             ('dc.subject', '', False, True, 'text', '', '', '', ''),
             ('dc.description', '', False, True, 'textarea', '', '', '', ''),
             ('dc.publisher', '', False, True, 'text', '', '', '', ''),
             ('dc.contributor', '', False, True, 'text', '', '', '', ''),
             ('dc.format', '', False, True, 'text', '', '', '', ''),
             ('dc.identifier', '', False, True, 'text', '', '', '', ''),
             ('dc.source', '', False, True, 'text', '', '', '', ''),
             ('dc.relation', '', False, True, 'text', '', '', '', ''),
             ('dc.coverage', '', False, True, 'text', '', '', '', ''))),
 'tese': ('Tese/dissertação (MTD-BR)',
          'Thesis/dissertation (MTD-BR)',
          'Teses e dissertações como o MTD-BR do IBICT e a BDTD as descrevem.',
          (('dc.contributor.author',
            '',
            True,
            False,
            'authority',
            '',
            'lattes-orcid',
            'Sobrenome, Nome; o id do currículo Lattes (16 dígitos) ou o ORCID iD após uma barra: '
            'Silva, Maria | 4727357182510680',
            'Surname, Name; the Lattes CV id (16 digits) or ORCID iD after a bar: Silva, Maria | '
            '4727357182510680'),
           ('dc.title.alternative',
            'en',
            False,
            False,
            'text',
            '',
            '',
            'Título em inglês',
            'Title in English'),
           ('dc.contributor.advisor',
            '',
            True,
            False,
            'authority',
            '',
            'lattes-orcid',
            'Sobrenome, Nome; o id do currículo Lattes (16 dígitos) ou o ORCID iD após uma barra: '
            'Silva, Maria | 4727357182510680',
            'Surname, Name; the Lattes CV id (16 digits) or ORCID iD after a bar: Silva, Maria | '
            '4727357182510680'),
           ('dc.contributor.advisor-co',
            '',
            False,
            True,
            'authority',
            '',
            'lattes-orcid',
            'Sobrenome, Nome; o id do currículo Lattes (16 dígitos) ou o ORCID iD após uma barra: '
            'Silva, Maria | 4727357182510680',
            'Surname, Name; the Lattes CV id (16 digits) or ORCID iD after a bar: Silva, Maria | '
            '4727357182510680'),
           ('dc.contributor.referee',
            '',
            False,
            True,
            'authority',
            '',
            'lattes-orcid',
            'Sobrenome, Nome; o id do currículo Lattes (16 dígitos) ou o ORCID iD após uma barra: '
            'Silva, Maria | 4727357182510680',
            'Surname, Name; the Lattes CV id (16 digits) or ORCID iD after a bar: Silva, Maria | '
            '4727357182510680'),
           ('dc.publisher',
            '',
            True,
            False,
            'text',
            '',
            '',
            'Instituição que concedeu o grau',
            'Institution that granted the degree'),
           ('dc.publisher.initials',
            '',
            True,
            False,
            'text',
            '',
            '',
            'Sigla da instituição, ex. UFRGS',
            "The institution's acronym, e.g. UFRGS"),
           ('dc.publisher.country',
            '',
            True,
            False,
            'text',
            '',
            '',
            'País da instituição, ex. Brasil',
            'Country of the institution, e.g. Brasil'),
           ('dc.publisher.program',
            '',
            True,
            False,
            'text',
            '',
            '',
            'Programa de pós-graduação',
            'Graduate programme'),
           ('dc.publisher.department',
            '',
            False,
            False,
            'text',
            '',
            '',
            'Departamento ou faculdade',
            'Department or faculty'),
           ('local.degree.level',
            '',
            True,
            False,
            'controlled',
            'degree-level',
            '',
            'Mestrado, doutorado…',
            "Master's, doctorate…"),
           ('local.degree.name',
            '',
            False,
            False,
            'text',
            '',
            '',
            'Ex. Mestre em Ciência da Computação',
            'E.g. Mestre em Ciência da Computação'),
           ('dc.date.issued',
            '',
            True,
            False,
            'date',
            '',
            '',
            'Data da defesa (AAAA-MM-DD)',
            'Date of the defence (YYYY-MM-DD)'),
           ('dc.subject.cnpq',
            '',
            True,
            True,
            'controlled',
            'cnpq',
            '',
            'Área do conhecimento da Tabela do CNPq',
            "Knowledge area of CNPq's table"),
           ('dc.subject',
            'pt-BR',
            True,
            True,
            'text',
            '',
            '',
            'Palavras-chave em português, uma por linha',
            'Keywords in Portuguese, one per line'),
           ('dc.subject',
            'en',
            False,
            True,
            'text',
            '',
            '',
            'Palavras-chave em inglês, uma por linha',
            'Keywords in English, one per line'),
           ('dc.description.abstract',
            'pt-BR',
            True,
            False,
            'textarea',
            '',
            '',
            'Resumo em português',
            'Abstract in Portuguese'),
           ('dc.description.abstract',
            'en',
            True,
            False,
            'textarea',
            '',
            '',
            'Resumo em inglês',
            'Abstract in English'),
           ('dc.identifier.citation',
            '',
            False,
            False,
            'text',
            '',
            '',
            'Referência da tese (ABNT NBR 6023)',
            'Reference of the thesis (ABNT NBR 6023)'),
           ('dc.type', '', False, True, 'text', '', '', '', ''),
           ('dc.rights', '', False, True, 'text', '', '', '', '')))}


LABELS = {"tese": {
    ("dc.title.alternative", "en"): ("Título em inglês", "Title in English"),
    ("dc.publisher", ""): ("Instituição", "Institution"),
    ("dc.date.issued", ""): ("Data da defesa", "Date of the defence"),
    ("dc.subject", "pt-BR"): ("Palavras-chave", "Keywords"),
    ("dc.subject", "en"): ("Palavras-chave", "Keywords"),
    ("dc.description.abstract", "pt-BR"): ("Resumo", "Abstract"),
    ("dc.description.abstract", "en"): ("Resumo", "Abstract"),
    ("dc.identifier.citation", ""): ("Referência", "Reference"),
}}


def cnpq_terms():
    for line in CNPQ.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            code, pt, en = (line.split("\t") + ["", ""])[:3]
            yield code.strip(), pt.strip(), en.strip()


def add(apps, schema_editor):
    Vocabulary = apps.get_model("archive", "Vocabulary")
    Term = apps.get_model("archive", "VocabularyTerm")
    Profile = apps.get_model("archive", "SubmissionProfile")
    Entry = apps.get_model("archive", "ProfileField")
    Field = apps.get_model("archive", "MetadataField")
    vocabularies = {}
    for slug, pt, en, terms in (("degree-level", "Nível do grau", "Degree level", DEGREE_LEVELS),
                                ("cnpq", "Áreas do Conhecimento (CNPq)",
                                 "Knowledge areas (CNPq)", tuple(cnpq_terms()))):
        vocabulary = Vocabulary.objects.create(slug=slug, name_pt_br=pt, name_en=en)
        vocabularies[slug] = vocabulary
        Term.objects.bulk_create(Term(vocabulary=vocabulary, value=value, label_pt_br=label_pt,
                                      label_en=label_en, position=n)
                                 for n, (value, label_pt, label_en) in enumerate(terms))
    fields = {".".join(p for p in (f.schema.name, f.element, f.qualifier) if p): f
              for f in Field.objects.select_related("schema")}
    for slug, (pt, en, description, entries) in PROFILES.items():
        profile = Profile.objects.create(slug=slug, name_pt_br=pt, name_en=en,
                                         description=description)
        labels = LABELS.get(slug, {})
        Entry.objects.bulk_create(
            Entry(profile=profile, field=fields[name], language=language, position=n,
                  required=required, repeatable=repeatable, input_type=input_type,
                  vocabulary=vocabularies.get(vocabulary), authority=authority,
                  help_pt_br=help_pt, help_en=help_en,
                  label_pt_br=labels.get((name, language), ("", ""))[0],
                  label_en=labels.get((name, language), ("", ""))[1])
            for n, (name, language, required, repeatable, input_type, vocabulary, authority,
                    help_pt, help_en) in enumerate(entries))
    _checked_now(schema_editor)


def remove(apps, schema_editor):
    apps.get_model("archive", "ProfileField").objects.all().delete()
    apps.get_model("archive", "SubmissionProfile").objects.all().delete()
    apps.get_model("archive", "Vocabulary").objects.all().delete()
    _checked_now(schema_editor)


def _checked_now(schema_editor):
    """PostgreSQL checks the deferred foreign keys of these rows now: the tables are altered
    next, in the same transaction, which it refuses while checks are pending."""
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("SET CONSTRAINTS ALL IMMEDIATE")


class Migration(migrations.Migration):

    dependencies = [
        ('archive', '0035_saf_bundles_collection_handle'),
    ]

    operations = [
        migrations.CreateModel(
            name='SubmissionProfile',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('slug', models.SlugField(max_length=100, unique=True, verbose_name='slug')),
                ('name_pt_br', models.CharField(max_length=200, verbose_name='name in Portuguese')),
                ('name_en', models.CharField(max_length=200, verbose_name='name in English')),
                ('description', models.CharField(blank=True, default='', max_length=1000, verbose_name='short description')),
            ],
            options={
                'verbose_name': 'submission profile',
                'verbose_name_plural': 'submission profiles',
                'ordering': ['slug'],
            },
        ),
        migrations.CreateModel(
            name='Vocabulary',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('slug', models.SlugField(max_length=100, unique=True, verbose_name='slug')),
                ('name_pt_br', models.CharField(max_length=200, verbose_name='name in Portuguese')),
                ('name_en', models.CharField(max_length=200, verbose_name='name in English')),
            ],
            options={
                'verbose_name': 'controlled vocabulary',
                'verbose_name_plural': 'controlled vocabularies',
                'ordering': ['slug'],
            },
        ),
        migrations.AddField(
            model_name='collection',
            name='profile',
            field=models.ForeignKey(blank=True, help_text='the fields its items have; empty: the default profile (padrão)', null=True, on_delete=django.db.models.deletion.PROTECT, related_name='collections', to='archive.submissionprofile', verbose_name='submission profile'),
        ),
        migrations.CreateModel(
            name='ProfileField',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('language', models.CharField(blank=True, default='', help_text='BCP 47 tag of its values, e.g. pt-BR; empty: any language or none', max_length=35, validators=[archive.models.validate_language], verbose_name='language')),
                ('position', models.PositiveIntegerField(default=0, verbose_name='position')),
                ('required', models.BooleanField(default=False, verbose_name='required')),
                ('repeatable', models.BooleanField(default=True, verbose_name='repeatable')),
                ('input_type', models.CharField(choices=[('text', 'text'), ('textarea', 'long text'), ('date', 'date'), ('controlled', 'controlled list'), ('authority', 'authority lookup')], default='text', max_length=16, verbose_name='input type')),
                ('authority', models.CharField(blank=True, choices=[('', 'none'), ('lattes', 'Lattes CV id'), ('orcid', 'ORCID iD'), ('lattes-orcid', 'Lattes CV id or ORCID iD')], default='', help_text='with an authority lookup: what its ids are', max_length=16, verbose_name='authority')),
                ('label_pt_br', models.CharField(blank=True, default='', help_text="empty: the registry field's label", max_length=200, verbose_name='label in Portuguese')),
                ('label_en', models.CharField(blank=True, default='', help_text="empty: the registry field's label", max_length=200, verbose_name='label in English')),
                ('help_pt_br', models.CharField(blank=True, default='', max_length=500, verbose_name='help in Portuguese')),
                ('help_en', models.CharField(blank=True, default='', max_length=500, verbose_name='help in English')),
                ('field', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to='archive.metadatafield', verbose_name='field')),
                ('profile', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='entries', to='archive.submissionprofile', verbose_name='profile')),
                ('vocabulary', models.ForeignKey(blank=True, help_text='with a controlled list: the values allowed', null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='archive.vocabulary', verbose_name='controlled vocabulary')),
            ],
            options={
                'verbose_name': 'profile field',
                'verbose_name_plural': 'profile fields',
                'ordering': ['profile', 'position', 'id'],
                'constraints': [models.UniqueConstraint(fields=('profile', 'field', 'language'), name='profilefield_unique_field_language')],
            },
        ),
        migrations.CreateModel(
            name='VocabularyTerm',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('value', models.CharField(help_text='what is stored, e.g. 1.03.00.00-7 or mestrado', max_length=200, verbose_name='value')),
                ('label_pt_br', models.CharField(max_length=300, verbose_name='label in Portuguese')),
                ('label_en', models.CharField(blank=True, default='', max_length=300, verbose_name='label in English')),
                ('position', models.PositiveIntegerField(default=0, verbose_name='position')),
                ('vocabulary', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='terms', to='archive.vocabulary', verbose_name='vocabulary')),
            ],
            options={
                'verbose_name': 'term',
                'verbose_name_plural': 'terms',
                'ordering': ['vocabulary', 'position', 'id'],
                'constraints': [models.UniqueConstraint(fields=('vocabulary', 'value'), name='vocabularyterm_unique_value')],
            },
        ),
        migrations.RunPython(add, remove),
    ]
