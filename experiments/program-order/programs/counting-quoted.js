const word = question.match(/["']([^"']+)["']/)[1];
answer((ctx.match(new RegExp('\\b' + word + '\\b', 'gi')) || []).length);
