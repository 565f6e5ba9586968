export declare function nodeVersionProblem(from: string, version?: string): string | null;
