using System.Text.Json;
using System.Text.Json.Serialization;
using ConcurrencySandbox.Contracts.Work;

namespace ConcurrencySandbox.Api.Work;

/// <summary>
/// The run answer's serializer, generated at build time: the cheapest endpoints (compute/sync?cycles=1 does almost no
/// work) are mostly harness, so their answer is written straight into the body by generated code instead of the
/// reflection-based resolver. Same wire form as <see cref="SandboxJson"/> (web defaults; the answer has no enum).
/// </summary>
[JsonSourceGenerationOptions(JsonSerializerDefaults.Web)]
[JsonSerializable(typeof(WorkRunResponse))]
internal sealed partial class WorkJson : JsonSerializerContext
{
}
