using System.Globalization;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Http.HttpResults;

namespace ConcurrencySandbox.Validation;

/// <summary>
/// Reads a request's query parameters against their descriptors and collects every error,
/// so one 400 answer names each bad parameter with its allowed range.
/// </summary>
public sealed class QueryReader(IQueryCollection query) : ValidationErrors
{
    public QueryReader(HttpRequest request)
        : this(request.Query)
    {
    }

    public long Read(IntegerParameter parameter)
    {
        if (!TryGetRaw(parameter, out var raw))
        {
            return parameter.Default ?? 0;
        }

        if (parameter.TryParse(raw, out var value))
        {
            return value;
        }

        Reject(parameter, raw);
        return parameter.Default ?? parameter.Min;
    }

    public double Read(NumberParameter parameter)
    {
        if (!TryGetRaw(parameter, out var raw))
        {
            return parameter.Default ?? 0;
        }

        if (double.TryParse(raw, NumberStyles.Float, CultureInfo.InvariantCulture, out var value) && double.IsFinite(value) && value >= parameter.Min && value <= parameter.Max)
        {
            return value;
        }

        Reject(parameter, raw);
        return parameter.Default ?? parameter.Min;
    }

    public string Read(ChoiceParameter parameter)
    {
        if (!TryGetRaw(parameter, out var raw))
        {
            return parameter.Default ?? string.Empty;
        }

        var choice = parameter.Choices.FirstOrDefault(c => string.Equals(c, raw, StringComparison.OrdinalIgnoreCase));
        if (choice is not null)
        {
            return choice;
        }

        Reject(parameter, raw);
        return parameter.Default ?? parameter.Choices[0];
    }

    public ValidationProblem Problem() => Problem("One or more query parameters are invalid.");

    private bool TryGetRaw(QueryParameter parameter, out string raw)
    {
        var values = query[parameter.Name];
        raw = values.Count > 0 ? values[^1] ?? string.Empty : string.Empty;
        if (values.Count > 0 && raw.Length > 0)
        {
            return true;
        }

        if (parameter.DefaultText is null)
        {
            Fail(parameter.Name, $"'{parameter.Name}' is required: {parameter.AllowedRange}.");
        }

        return false;
    }

    private void Reject(QueryParameter parameter, string raw) => Fail(parameter.Name, parameter.Rejection(raw));
}
