// Counts a .nettrace's events by provider and event, per second of the phase it covered: what each part of the
// observer makes the service write (observer-parts.sh). Usage: dotnet run nettrace-events.cs -- FILE SECONDS
#:package Microsoft.Diagnostics.Tracing.TraceEvent
using System.Globalization;
using Microsoft.Diagnostics.Tracing;

var seconds = double.Parse(args[1], CultureInfo.InvariantCulture);
var counts = new Dictionary<string, int>();
using (var source = new EventPipeEventSource(args[0]))
{
    // Subscribing makes the parsers resolve names: the runtime's events by TraceEvent's CLR parser, the others by their metadata.
    source.Clr.All += _ => { };
    source.Dynamic.All += _ => { };
    source.AllEvents += e =>
    {
        var key = $"{e.ProviderName}/{e.EventName}";
        counts[key] = counts.GetValueOrDefault(key) + 1;
    };
    source.Process();
}
foreach (var (key, count) in counts.OrderByDescending(c => c.Value))
{
    Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{count / seconds,10:0.#} /s  {key}"));
}
