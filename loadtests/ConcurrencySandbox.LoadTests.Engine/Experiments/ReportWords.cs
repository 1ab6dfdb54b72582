namespace ConcurrencySandbox.LoadTests.Experiments;

/// <summary>
/// What a report calls what its load sends, so a TCP message stream does not read as HTTP requests: the unit counted
/// ("requests", "messages"), its rate, its good outcome, the latency columns' prefix and the note that says what they measure.
/// </summary>
public sealed record ReportWords(string Unit, string What, string PerSecond, string Ok, string LatencyPrefix, string LatencyNote)
{
    /// <summary>HTTP requests: the default.</summary>
    public static readonly ReportWords Requests = new("requests", "request", "RPS", "ok (2xx)", "",
        "Latency columns (HdrHistogram, 3 significant digits) rank the requests that got an answer and the timed-out ones, each counted at the time it was given up after: a figure whose rank falls among the timed-out requests is a lower bound, marked \u2265 (\"p50 \u2265 60000\" when half timed out). Connection errors have no latency and are counted under \"failed\" only; \"no answer\" where no request was answered or timed out.");

    /// <summary>The streaming experiment's messages: their latency is the arrival lateness its validating clients measure.</summary>
    public static readonly ReportWords Messages = new("messages", "stream", "messages/s", "delivered intact", "arrival lateness ",
        "Arrival lateness columns (the validating client processes' histogram, 0.1 ms buckets) are each delivered message's arrival against its schedule (the client's first arrival plus sequence x interval), over every message received in the row's span: the whole run, or in the per-step table the whole time that many clients were connected (connecting, settling and any hold). "
        + "It includes the client processes' own delay, so it is not the server's send lateness (when the server finished sending against its tick) that the figures table gives; a --find-capacity step's send lateness covers only its measured hold, after a settling second, and is read from the server. "
        + "Messages lost, corrupt or out of order count under \"failed\".");

    /// <summary>The unit with a capital, to open a sentence: "Requests: ...", "Messages: ...".</summary>
    public string Sentence => char.ToUpperInvariant(Unit[0]) + Unit[1..];
}
