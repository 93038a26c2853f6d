#Requires -Version 5.1
<#
.SYNOPSIS
Remote approval client for scheduled-events-bridge: lists the events an agent sees, or approves Scheduled ones.

.DESCRIPTION
Signs each request as the agent's approval API requires: X-Bridge-Timestamp (Unix seconds) and X-Bridge-Signature
(sha256= and the lowercase hex HMAC-SHA256 of timestamp + "." + body, keyed with the approval secret).

The secret is never a parameter (a command line is visible to every user of the machine, and kept in the history):
it is read from the environment variable BRIDGE_APPROVAL_SECRET or from the file named by -SecretFile (its first line).

Prints the agent's JSON answer, and one line with the HTTP status on standard error. A request that got no answer
at all is signed again and sent again, up to 5 times (after 1, 2, 4, 8 s).

Exit code: 0 when the agent answered 200, or 409 "already approved by this agent" (an earlier attempt went through);
1 otherwise; 2 on misuse.

.PARAMETER EventId
One or more EventIds to approve (POST /api/v1/approvals).

.PARAMETER List
List the events the agent sees now (GET /api/v1/events).

.PARAMETER Url
The agent's approval API. Default: http://localhost:8089 (https://... when it has TLS).

.PARAMETER SecretFile
A file whose first line is the approval secret, e.g. one only Administrators can read.

.EXAMPLE
$env:BRIDGE_APPROVAL_SECRET = Get-Content -LiteralPath C:\secure\approval.secret -TotalCount 1
.\approve.ps1 -List -Url http://10.0.0.4:8089

.EXAMPLE
.\approve.ps1 C7061BAC-AFDC-4513-B24B-AA5F13A16123 -SecretFile C:\secure\approval.secret
#>
[CmdletBinding(DefaultParameterSetName = 'Approve')]
param(
    [Parameter(Mandatory, Position = 0, ValueFromRemainingArguments, ParameterSetName = 'Approve')]
    [string[]] $EventId,
    [Parameter(Mandatory, ParameterSetName = 'List')]
    [switch] $List,
    [string] $Url = 'http://localhost:8089',
    [string] $SecretFile
)

Set-StrictMode -Version 3.0
$ErrorActionPreference = 'Stop'

function Exit-Misuse([string] $Message) {
    [Console]::Error.WriteLine("approve: $Message")
    exit 2
}

$secret = $env:BRIDGE_APPROVAL_SECRET
if ($SecretFile) {
    if (-not (Test-Path -LiteralPath $SecretFile)) { Exit-Misuse "$SecretFile does not exist" }
    $secret = Get-Content -LiteralPath $SecretFile -TotalCount 1 -Encoding UTF8
}
if (-not $secret) { Exit-Misuse 'set BRIDGE_APPROVAL_SECRET, or name a file holding the secret with -SecretFile' }

if ($PSCmdlet.ParameterSetName -eq 'List') {
    $method = 'GET'
    $path = '/api/v1/events'
    $body = ''
} else {
    foreach ($id in $EventId) {
        if ($id -notmatch '^[A-Za-z0-9-]{1,100}$') { Exit-Misuse "'$id' is not an EventId" }
    }
    $method = 'POST'
    $path = '/api/v1/approvals'
    $body = '{"StartRequests":[' + (($EventId | ForEach-Object { '{"EventId":"' + $_ + '"}' }) -join ',') + ']}'
}

$utf8 = New-Object System.Text.UTF8Encoding $false
# Signed anew for each attempt: a retry carries a fresh timestamp.
function New-SignedRequest {
    $timestamp = [DateTimeOffset]::UtcNow.ToUnixTimeSeconds().ToString([Globalization.CultureInfo]::InvariantCulture)
    $hmac = New-Object System.Security.Cryptography.HMACSHA256 -ArgumentList (, $utf8.GetBytes($secret))
    try {
        $digest = $hmac.ComputeHash($utf8.GetBytes("$timestamp.$body"))
    } finally {
        $hmac.Dispose()
    }
    $signature = 'sha256=' + (($digest | ForEach-Object { $_.ToString('x2') }) -join '')
    $request = New-Object System.Net.Http.HttpRequestMessage -ArgumentList ([System.Net.Http.HttpMethod]::new($method)),
        ($Url.TrimEnd('/') + $path)
    $request.Headers.Add('X-Bridge-Timestamp', $timestamp)
    $request.Headers.Add('X-Bridge-Signature', $signature)
    if ($method -eq 'POST') {
        $request.Content = New-Object System.Net.Http.ByteArrayContent -ArgumentList (, $utf8.GetBytes($body))
        $request.Content.Headers.ContentType = New-Object System.Net.Http.Headers.MediaTypeHeaderValue 'application/json'
    }
    return $request
}

# HttpClient in Windows PowerShell 5.1 and PowerShell 7 alike: the exact bytes that were signed, and the agent's answer
# whatever its status (Invoke-WebRequest throws on a 4xx and hides the body in 5.1).
Add-Type -AssemblyName System.Net.Http
$client = New-Object System.Net.Http.HttpClient
$client.Timeout = [TimeSpan]::FromSeconds(30)
# Only a request that got no answer at all is sent again (after 1, 2, 4, 8 s): an approval that went through but
# whose answer was lost comes back as 409 "already approved by this agent", which counts as done.
$attempts = 5
try {
    for ($attempt = 1; $attempt -le $attempts; $attempt++) {
        try {
            $response = $client.SendAsync((New-SignedRequest)).GetAwaiter().GetResult()
        } catch {
            $reason = $_.Exception.GetBaseException().Message
            if ($attempt -lt $attempts) {
                [Console]::Error.WriteLine("approve: no answer ($reason), attempt $attempt of $attempts; trying again")
                Start-Sleep -Seconds ([math]::Pow(2, $attempt - 1))
                continue
            }
            [Console]::Error.WriteLine("approve: no answer from $Url after $attempts attempt(s) ($reason)")
            exit 1
        }
        $status = [int]$response.StatusCode
        $answer = $response.Content.ReadAsStringAsync().GetAwaiter().GetResult()
        Write-Output $answer
        if ($status -eq 200) {
            [Console]::Error.WriteLine("approve: HTTP 200, approved")
            exit 0
        }
        if ($status -eq 409 -and $answer -match 'already approved by this agent') {
            [Console]::Error.WriteLine("approve: HTTP 409, already approved by this agent: success")
            exit 0
        }
        [Console]::Error.WriteLine("approve: HTTP $status, refused")
        exit 1
    }
} finally {
    $client.Dispose()
}
