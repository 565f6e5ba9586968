export declare function nodeVersionProblem(from: string, version?: string, host?: { platform: string; arch: string; shell?: string }): string | null;
