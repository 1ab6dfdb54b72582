using System.Globalization;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Http.HttpResults;
using Microsoft.AspNetCore.WebUtilities;

namespace ConcurrencySandbox.Validation;

/// <summary>
/// Reads a query's parameters against their declarations and collects every error, so one 400 answer names each
/// bad parameter with its allowed range. The API's endpoints read through it in <see cref="DeclaredQueryFilter"/>
/// and <see cref="DeclaredQuery{TSelf}"/>; the control plane's listener and the stub call it directly.
/// A parameter sent more than once counts with its last value; an empty value counts as left out; names match
/// case-insensitively once decoded, as in <see cref="IQueryCollection"/>.
/// </summary>
public sealed class QueryReader : ValidationErrors
{
    private readonly IQueryCollection? _query;
    private readonly string? _queryString;

    /// <summary>Reads an already parsed query (the control plane's listener has one of its own).</summary>
    public QueryReader(IQueryCollection query) => _query = query;

    /// <summary>
    /// Reads a request's raw query string in place: only the declared names' values are decoded, and the request's
    /// parsed <see cref="HttpRequest.Query"/> collection (a dictionary, its entries and a feature per request) is never built.
    /// </summary>
    public QueryReader(QueryString queryString) => _queryString = queryString.Value;

    /// <summary>The 400 for a rule that spans parameters, checked by a handler once each value is valid on its own.</summary>
    public static ValidationProblem Refuse(string parameter, string message)
    {
        var refusal = new QueryReader(QueryCollection.Empty);
        refusal.Fail(parameter, message);
        return refusal.Problem();
    }

    /// <summary>Reads any kind of declaration: a <see cref="long"/>, a <see cref="double"/> or a <see cref="string"/>.</summary>
    public object Read(QueryParameter parameter) => parameter switch
    {
        IntegerParameter p => (object)Read(p),
        NumberParameter p => Read(p),
        ChoiceParameter p => Read(p),
        _ => throw new ArgumentOutOfRangeException(nameof(parameter), parameter.GetType().Name, "Unknown parameter kind."),
    };

    /// <summary>Whether the query gives the parameter a value (rather than leaving it to its default).</summary>
    public bool Sent(QueryParameter parameter) => LastValue(parameter).Length > 0;

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

    private string LastValue(QueryParameter parameter)
    {
        if (_query is not null)
        {
            var values = _query[parameter.Name];
            return values.Count > 0 ? values[^1] ?? string.Empty : string.Empty;
        }

        QueryStringEnumerable.EncodedNameValuePair? last = null;
        foreach (var pair in new QueryStringEnumerable(_queryString))
        {
            if (pair.DecodeName().Span.Equals(parameter.Name, StringComparison.OrdinalIgnoreCase))
            {
                last = pair;
            }
        }

        return last?.DecodeValue().ToString() ?? string.Empty;
    }

    private bool TryGetRaw(QueryParameter parameter, out string raw)
    {
        raw = LastValue(parameter);
        if (raw.Length > 0)
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
