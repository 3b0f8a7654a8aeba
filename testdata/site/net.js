window.scriptRuns = (window.scriptRuns || 0) + 1;
