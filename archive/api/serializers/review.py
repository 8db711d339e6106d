"""The review's shapes (issue 35): a submission as its submitter reads and writes it, a task as
a reviewer reads it, the body of a transition. The services check the rest (review/)."""
from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from ...models import AccessRights, Collection, Submission, SubmissionCheck, Task
from ...review import checks, selectors
from ..schema import StrictInput
from .fields import ItemIbiField


class ValueSerializer(serializers.Serializer):
    """One value of a registry's field, as DcValue keeps it."""

    field = serializers.CharField(help_text="a registry's field, e.g. dc.contributor.author")
    value = serializers.CharField()
    language = serializers.CharField(required=False, allow_blank=True, default="")
    authority = serializers.CharField(required=False, allow_blank=True, default="",
                                      help_text="an ORCID iD, a Lattes CV id…")
    confidence = serializers.IntegerField(required=False, default=-1)


class _SubmissionFields(StrictInput):
    title = serializers.CharField(required=False, allow_blank=True, max_length=1000)
    language = serializers.CharField(required=False, allow_blank=True, max_length=35,
                                     help_text="BCP 47, e.g. pt-BR")
    metadata = ValueSerializer(many=True, required=False)
    files = serializers.ListField(child=serializers.CharField(), required=False,
                                  help_text="ids of your complete uploads (/api/uploads/)")
    licence_text = serializers.CharField(required=False, allow_blank=True,
                                         help_text="the deposit licence shown, kept as accepted")
    licence_accepted = serializers.BooleanField(required=False)
    access_rights = serializers.CharField(
        required=False, allow_blank=True,
        help_text=f"one of {', '.join(AccessRights.values)}; empty: the collection's default")
    embargo_until = serializers.DateField(required=False, allow_null=True)


class SubmissionCreateSerializer(_SubmissionFields):
    collection = serializers.SlugRelatedField(slug_field="slug",
                                              queryset=Collection.objects.all())
    previous_edition = ItemIbiField(required=False, help_text="IBI of the item this is a new "
                                                              "edition of")
    translation_of = ItemIbiField(required=False, help_text="IBI of the item translated")


class SubmissionUpdateSerializer(_SubmissionFields):
    version = serializers.IntegerField(help_text="the version read: a stale one is a 409")


class TransitionSerializer(StrictInput):
    version = serializers.IntegerField(required=False, help_text="the submission's version "
                                                                 "read: a stale one is a 409")
    reason = serializers.CharField(required=False, allow_blank=True, default="",
                                   help_text="why (required to return a submission)")
    assignee = serializers.CharField(required=False, help_text="reassign: the username")


class SubmissionCheckSerializer(serializers.ModelSerializer):
    """One check before review's result, its message in the reader's language."""

    file = serializers.CharField(read_only=True,
                                 help_text="the upload's id; empty: the submission as a whole")
    message = serializers.SerializerMethodField()
    details = serializers.DictField(read_only=True, help_text="what the check found: a "
                                    "file's PRONOM id and MIME type, the signature found…")

    class Meta:
        model = SubmissionCheck
        fields = read_only_fields = ["name", "file", "file_name", "outcome", "message",
                                     "details", "at"]

    def get_message(self, row: SubmissionCheck) -> str:
        return checks.translated(row.message, row.params)


class _Checked(serializers.Serializer):
    checks = serializers.SerializerMethodField(
        help_text="the checks before review of its content as it is now (pass, warn, fail, "
                  "not_run); empty while they run (checks_due)")

    @extend_schema_field(SubmissionCheckSerializer(many=True))
    def get_checks(self, submission: Submission) -> list:
        return SubmissionCheckSerializer(selectors.checks_of(submission), many=True).data


class SubmissionSerializer(_Checked, serializers.ModelSerializer):
    collection = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    metadata = ValueSerializer(many=True, read_only=True)
    files = serializers.ListField(child=serializers.CharField(), read_only=True)
    previous_edition = serializers.SlugRelatedField(slug_field="ibi", read_only=True,
                                                    allow_null=True)
    translation_of = serializers.SlugRelatedField(slug_field="ibi", read_only=True,
                                                  allow_null=True)
    item = serializers.SlugRelatedField(slug_field="ibi", read_only=True, allow_null=True,
                                        help_text="the item's IBI, once published")
    access_rights = serializers.CharField(read_only=True,
                                          help_text="empty: the collection's default")

    class Meta:
        model = Submission
        fields = ["id", "collection", "title", "language", "metadata", "files", "licence_text",
                  "licence_accepted_at", "access_rights", "embargo_until", "previous_edition",
                  "translation_of", "state", "step", "version", "item", "created", "updated",
                  "checks", "checks_due"]
        extra_kwargs = {"checks_due": {"help_text": "since when its checks are owed (they "
                                                    "run in the background); null: done"}}


class TaskSubmissionSerializer(_Checked, serializers.ModelSerializer):
    collection = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    owner = serializers.SlugRelatedField(slug_field="username", read_only=True)
    metadata = ValueSerializer(many=True, read_only=True)

    class Meta:
        model = Submission
        fields = ["id", "collection", "owner", "title", "language", "metadata", "state",
                  "version", "created", "checks", "checks_due"]


class TaskSerializer(serializers.ModelSerializer):
    submission = TaskSubmissionSerializer(read_only=True)
    claimed_by = serializers.SlugRelatedField(slug_field="username", read_only=True,
                                              allow_null=True)

    class Meta:
        model = Task
        fields = ["id", "submission", "step", "role", "claimed_by", "created"]
